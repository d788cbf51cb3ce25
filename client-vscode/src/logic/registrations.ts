// What one start of the server registered (listeners on its client), so that a
// restart disposes them instead of adding a new set beside the old one each time.

export interface Disposable {
  dispose(): unknown;
}

export class Registrations {
  private items: Disposable[] = [];

  add(item: Disposable): void {
    this.items.push(item);
  }

  get count(): number {
    return this.items.length;
  }

  /** Dispose everything registered so far, each once; one that fails keeps none of the others. */
  disposeAll(): void {
    const items = this.items;
    this.items = [];
    for (const item of items) {
      try {
        item.dispose();
      } catch {
        // a listener of a client that already stopped: nothing left to release
      }
    }
  }
}
