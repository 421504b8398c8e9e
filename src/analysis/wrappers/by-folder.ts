/**
 * Answers kept by importing folder, then specifier: both keys are strings the caller already holds
 * (the folder of the file, the specifier in its tree), so a lookup hashes no new string, where a
 * `${dir}\0${specifier}` key built on every ask cost more than the lookup itself. Bounded by the
 * number of answers; the folder answered least recently goes first.
 */
export class ByFolder<V> {
  private readonly folders = new Map<string, Map<string, V>>();
  private size = 0;

  constructor(private readonly max: number) {}

  get(dir: string, specifier: string): V | undefined {
    return this.folders.get(dir)?.get(specifier);
  }

  has(dir: string, specifier: string): boolean {
    return this.folders.get(dir)?.has(specifier) ?? false;
  }

  set(dir: string, specifier: string, value: V): void {
    let inner = this.folders.get(dir);
    if (inner) {
      // Most recently answered last.
      this.folders.delete(dir);
      this.folders.set(dir, inner);
    } else {
      while (this.size >= this.max && this.folders.size > 0) {
        const [oldest, list] = this.folders.entries().next().value!;
        this.size -= list.size;
        this.folders.delete(oldest);
      }
      this.folders.set(dir, (inner = new Map()));
    }
    if (!inner.has(specifier)) this.size++;
    inner.set(specifier, value);
  }

  clear(): void {
    this.folders.clear();
    this.size = 0;
  }
}
