/** A first-come, first-served lock for async work in one process. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Holds the lock until the returned release is called: for work that spans several awaits of its caller (a streamed read). */
  async acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let acquired!: () => void;
    const ready = new Promise<void>((resolve) => (acquired = resolve));
    void this.run(() => {
      acquired();
      return held;
    });
    await ready;
    return release;
  }
}
