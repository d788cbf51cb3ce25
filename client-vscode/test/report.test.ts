import * as assert from 'assert';
import { escapeHtml, renderReport } from '../src/logic/report';

describe('the workspace report', () => {
  it('escapes everything it shows', () => {
    assert.strictEqual(escapeHtml(`<b>"x" & 'y'</b>`), '&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;');
    const html = renderReport(
      {
        documents: 2,
        pairs: [
          {
            a: 'file:///ws/a.txt',
            b: 'file:///ws/<script>.txt',
            aPath: 'a.txt',
            bPath: '<script>.txt',
            similarity: 0.5,
            aCoverage: 0.25,
            bCoverage: 0.75,
            longest: 300,
            passages: [{ a: { start: { line: 3 } }, b: { start: { line: 7 } }, score: 1, kind: 'verbatim' }],
          },
        ],
      },
      'abc',
    );
    assert.ok(!html.includes('<script>.txt'));
    assert.match(html, /&lt;script&gt;\.txt/);
    assert.match(html, /50%/);
    assert.match(html, /a\.txt:4/);
    assert.match(html, /nonce-abc/);
  });

  it('says so when nothing matched', () => {
    assert.match(renderReport({ documents: 3, pairs: [] }, 'n'), /No pair of documents/);
  });
});
