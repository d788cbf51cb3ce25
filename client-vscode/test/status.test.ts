import * as assert from 'assert';
import { statusText, statusTooltip, waitingMessage } from '../src/logic/status';

describe('the status bar item', () => {
  it('shows start-up, indexing progress, the count, and errors', () => {
    assert.match(statusText(undefined), /starting/);
    assert.match(statusText({ state: 'indexing', documents: 0, progress: { done: 12, total: 40 } }), /indexing 12\/40/);
    assert.strictEqual(statusText({ state: 'ready', documents: 18 }), '$(check) Doublet: 18 documents');
    assert.strictEqual(statusText({ state: 'ready', documents: 1 }), '$(check) Doublet: 1 document');
    assert.match(statusText({ state: 'error', documents: 0 }), /error/);
    assert.match(statusTooltip({ state: 'error', documents: 0, lastError: 'bad doublet.toml' }), /bad doublet\.toml/);
  });

  it('says which files were passed over, and why', () => {
    const skipped = Array.from({ length: 7 }, (_, i) => ({ path: `f${i}.ipynb`, reason: 'nested too deeply to be read' }));
    const tip = statusTooltip({ state: 'ready', documents: 3, skipped, skippedCount: 7 });
    assert.match(tip, /7 files skipped:/);
    assert.match(tip, /f0\.ipynb: nested too deeply to be read/);
    assert.doesNotMatch(tip, /f5\.ipynb/);
    assert.doesNotMatch(statusTooltip({ state: 'ready', documents: 3, skipped: [], skippedCount: 0 }), /skipped/);
  });

  it('warns when the thresholds leave little to find', () => {
    const warnings = ['97% of the prose documents\' fingerprints are in more than 21 documents'];
    assert.strictEqual(statusText({ state: 'ready', documents: 41, warnings }), '$(warning) Doublet: 41 documents');
    assert.match(statusTooltip({ state: 'ready', documents: 41, warnings }), /Warning: 97% of the prose/);
    assert.strictEqual(statusText({ state: 'ready', documents: 41, warnings: [] }), '$(check) Doublet: 41 documents');
  });

  it('says Find Similar Passages waits for the index while it is built', () => {
    assert.match(waitingMessage({ state: 'indexing', documents: 0, progress: { done: 5, total: 50 } }), /waiting for the index to be built \(5 of 50 files\)/);
    assert.match(waitingMessage(undefined), /waiting for the server/);
    assert.strictEqual(waitingMessage({ state: 'ready', documents: 3 }), 'finding similar passages…');
  });
});
