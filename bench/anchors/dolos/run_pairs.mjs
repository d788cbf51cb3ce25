// Compare given pairs of texts with Dolos, one fresh instance per pair
// (its index keeps documents between analyze calls, so reusing one instance
// would compare every text with every earlier one).
//
// Input: JSON lines {"a": text, "b": text} from the file named by the first
// argument, or stdin. Output: one JSON line per input line, in order:
// {"similarity": number, "fragments": [[aStartRow, aStartCol, aEndRow, aEndCol,
//   bStartRow, bStartCol, bEndRow, bEndCol], ...]} with Dolos' own selections
// (rows split on "\n", columns in UTF-16 units, end exclusive), or
// {"error": message}. Conversion to code points happens in Python.
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { Dolos, File } from "@dodona/dolos-lib";

const OPTIONS = { kgramLength: 23, kgramsInWindow: 17, language: "char" };

function selection(region) {
  return [region.startRow, region.startCol, region.endRow, region.endCol];
}

async function comparePair(a, b) {
  const dolos = new Dolos(OPTIONS);
  const report = await dolos.analyze([new File("a", a), new File("b", b)]);
  const [pair] = report.allPairs();
  const swapped = pair.leftFile.path !== "a";
  const fragments = pair.buildFragments().map((f) => {
    const [left, right] = [selection(f.leftSelection), selection(f.rightSelection)];
    return swapped ? right.concat(left) : left.concat(right);
  });
  return { similarity: pair.similarity, fragments };
}

async function main() {
  const input = process.argv[2] ? createReadStream(process.argv[2]) : process.stdin;
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    let result;
    try {
      const { a, b } = JSON.parse(line);
      result = await comparePair(a, b);
    } catch (error) {
      result = { error: String(error && error.stack ? error.stack : error) };
    }
    process.stdout.write(JSON.stringify(result) + "\n");
  }
}

await main();
