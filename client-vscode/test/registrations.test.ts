import * as assert from 'assert';
import { Registrations } from '../src/logic/registrations';

describe('what a start of the server registered', () => {
  it('is disposed once on stop, so restarts do not pile listeners up', () => {
    const registered = new Registrations();
    const disposed: string[] = [];
    for (const start of ['first', 'second']) {
      registered.add({ dispose: () => disposed.push(`${start} state listener`) });
      registered.add({ dispose: () => disposed.push(`${start} status listener`) });
      assert.strictEqual(registered.count, 2);
      registered.disposeAll();
      assert.strictEqual(registered.count, 0);
    }
    registered.disposeAll();
    assert.deepStrictEqual(disposed, ['first state listener', 'first status listener', 'second state listener', 'second status listener']);
  });

  it('disposes the rest when one fails', () => {
    const registered = new Registrations();
    let later = false;
    registered.add({ dispose: () => { throw new Error('already gone'); } });
    registered.add({ dispose: () => { later = true; } });
    registered.disposeAll();
    assert.ok(later);
  });
});
