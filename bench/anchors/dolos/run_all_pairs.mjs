// All-pairs Dolos run over files, as the anchors were measured: one
// instance, analyze all files, report.allPairs(). Prints one JSON summary line.
//
// Input: a file (first argument) or stdin holding one path per line.
// Heap size is set by the caller with node --max-old-space-size.
import { readFileSync } from "node:fs";
import { Dolos, File } from "@dodona/dolos-lib";

const OPTIONS = { kgramLength: 23, kgramsInWindow: 17, language: "char" };

function readPaths() {
  const source = process.argv[2] ?? 0; // 0 is stdin's file descriptor
  return readFileSync(source, "utf8").split("\n").filter((p) => p !== "");
}

async function main() {
  const paths = readPaths();
  const files = paths.map((p) => new File(p, readFileSync(p, "utf8")));
  const start = performance.now();
  const report = await new Dolos(OPTIONS).analyze(files);
  const pairs = report.allPairs();
  const withOverlap = pairs.filter((p) => p.similarity > 0).length;
  const seconds = (performance.now() - start) / 1000;
  console.log(JSON.stringify({
    pairs: withOverlap,
    pairs_compared: pairs.length,
    files: files.length,
    tool_seconds: seconds,
  }));
}

await main();
