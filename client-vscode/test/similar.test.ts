import * as assert from 'assert';
import { SimilarPassage, fileLabel, groupByFile, lines, passageLabel } from '../src/logic/similar';

function passage(other: string, line: number, length: number, score = 1): SimilarPassage {
  const range = { start: { line, character: 0 }, end: { line: line + 2, character: 5 } };
  return {
    uri: 'file:///ws/a.txt',
    range,
    other: { uri: `file:///ws/${other}`, path: other, range },
    score,
    kind: score >= 0.99 ? 'verbatim' : 'edited',
    length,
    excerpt: 'here',
    otherExcerpt: 'there',
    digest: `${other}:${line}`,
  };
}

describe('the Similar Passages view', () => {
  it('groups passages by other file, most matched first, passages in order', () => {
    const groups = groupByFile([passage('b.txt', 40, 100), passage('c.txt', 5, 500), passage('b.txt', 3, 100)]);
    assert.deepStrictEqual(
      groups.map((g) => g.path),
      ['c.txt', 'b.txt'],
    );
    assert.deepStrictEqual(
      groups[1].passages.map((p) => p.range.start.line),
      [3, 40],
    );
    assert.strictEqual(groups[1].characters, 200);
  });

  it('labels lines 1-based, and passages with kind and exactness', () => {
    assert.strictEqual(lines({ start: { line: 0, character: 0 }, end: { line: 0, character: 9 } }), 'line 1');
    assert.strictEqual(passageLabel(passage('b.txt', 9, 80, 0.87)), 'lines 10–12 ~ lines 10–12 · edited, 87% exact');
    assert.strictEqual(fileLabel(groupByFile([passage('b.txt', 1, 80)])[0]), 'b.txt (1 passage, 80 characters)');
  });

  it('shows nothing for no results', () => {
    assert.deepStrictEqual(groupByFile([]), []);
  });
});
