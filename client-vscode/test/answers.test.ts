import * as assert from 'assert';
import { afterCheck, afterFindSimilar } from '../src/logic/answers';

describe('what the extension adds to the answers', () => {
  it('says "no similar passages found" only for a document of a folder', () => {
    assert.strictEqual(afterFindSimilar(0, true), 'Doublet: no similar passages found.');
    assert.strictEqual(afterFindSimilar(3, true), undefined);
    assert.strictEqual(afterFindSimilar(0, false), undefined, 'outside every folder: the server said why');
  });

  it('after Check Document: nothing found, not a document, or nothing when the server said why', () => {
    assert.match(afterCheck({ checked: true, diagnostics: 0 })!, /no passage of this document matches/);
    assert.strictEqual(afterCheck({ checked: true, diagnostics: 2 }), undefined, 'the Problems panel shows them');
    assert.match(afterCheck({ checked: false, diagnostics: 0 })!, /not one of its folder's documents/);
    assert.strictEqual(afterCheck({ checked: false, diagnostics: 0, outside: true }), undefined);
    assert.strictEqual(afterCheck(undefined), undefined);
  });
});
