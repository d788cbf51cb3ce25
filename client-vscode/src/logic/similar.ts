// The results of doublet.findSimilar, grouped by the other file for the
// "Similar Passages" view. No VS Code here: unit-tested on its own.

export interface JsonPosition {
  line: number;
  character: number;
}

export interface JsonRange {
  start: JsonPosition;
  end: JsonPosition;
}

export interface SimilarPassage {
  uri: string;
  range: JsonRange;
  other: { uri: string; path: string; range: JsonRange };
  score: number;
  kind: string;
  length: number;
  excerpt: string;
  otherExcerpt: string;
  digest: string;
}

export interface FileGroup {
  path: string;
  uri: string;
  passages: SimilarPassage[];
  characters: number;
}

/** Groups by other file, the file with the most matching characters first. */
export function groupByFile(passages: SimilarPassage[]): FileGroup[] {
  const groups = new Map<string, FileGroup>();
  for (const passage of passages) {
    let group = groups.get(passage.other.uri);
    if (!group) {
      group = { path: passage.other.path, uri: passage.other.uri, passages: [], characters: 0 };
      groups.set(passage.other.uri, group);
    }
    group.passages.push(passage);
    group.characters += passage.length;
  }
  const sorted = [...groups.values()];
  for (const group of sorted) {
    group.passages.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  }
  sorted.sort((a, b) => b.characters - a.characters || a.path.localeCompare(b.path));
  return sorted;
}

export function lines(range: JsonRange): string {
  const first = range.start.line + 1;
  const last = range.end.line + 1;
  return first === last ? `line ${first}` : `lines ${first}–${last}`;
}

export function passageLabel(passage: SimilarPassage): string {
  const exact = Math.round(100 * passage.score);
  return `${lines(passage.range)} ~ ${lines(passage.other.range)} · ${passage.kind}, ${exact}% exact`;
}

export function fileLabel(group: FileGroup): string {
  const count = group.passages.length;
  return `${group.path} (${count} passage${count === 1 ? '' : 's'}, ${group.characters} characters)`;
}
