// Compare given pairs of texts with Dolos, one fresh instance per pair
// (its index keeps documents between analyze calls, so reusing one instance
// would compare every text with every earlier one).
//
// Options: none compares prose as the anchors were measured (char tokens,
// k-grams of 23, windows of 17); "--language NAME" (e.g. java) compares code
// as Dolos' users do: that tree-sitter language with Dolos' default k-gram
// length and window.
//
// Input: JSON lines {"a": text, "b": text} from the file named by the first
// other argument, or stdin. Output: one JSON line per input line, in order:
// {"similarity": number, "fragments": [[aStartRow, aStartCol, aEndRow, aEndCol,
//   bStartRow, bStartCol, bEndRow, bEndCol], ...]} with Dolos' own selections
// (rows split on "\n", columns in UTF-16 units, end exclusive), or
// {"error": message}. Conversion to code points happens in Python. (With
// --language the selections are tree-sitter's; Python reads only the score.)
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { Dolos, File } from "@dodona/dolos-lib";

const PROSE_OPTIONS = { kgramLength: 23, kgramsInWindow: 17, language: "char" };

// Dolos options and input path (undefined: stdin) from the command line.
function parseArguments(argv) {
  const at = argv.indexOf("--language");
  if (at === -1) return { options: PROSE_OPTIONS, inputPath: argv[0] };
  const language = argv[at + 1];
  if (!language) throw new Error("--language needs a name");
  const rest = argv.filter((_, i) => i !== at && i !== at + 1);
  return { options: { language }, inputPath: rest[0] };
}

function selection(region) {
  return [region.startRow, region.startCol, region.endRow, region.endCol];
}

async function comparePair(a, b, options) {
  const dolos = new Dolos(options);
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
  const { options, inputPath } = parseArguments(process.argv.slice(2));
  const input = inputPath ? createReadStream(inputPath) : process.stdin;
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    let result;
    try {
      const { a, b } = JSON.parse(line);
      result = await comparePair(a, b, options);
    } catch (error) {
      result = { error: String(error && error.stack ? error.stack : error) };
    }
    process.stdout.write(JSON.stringify(result) + "\n");
  }
}

await main();
