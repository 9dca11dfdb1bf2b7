// A bounded cache: at most `max` entries, the least recently used dropped
// first. A Map keeps its keys in insertion order, so a hit moves its key to
// the end and the first key is always the one unused longest. The caches of
// API keys, routers and audiences are built on it, so that their memory is
// bounded however many workspaces there are, and a cache that is full keeps
// what is in use instead of starting over.

export interface Lru<K, V> {
  get(key: K): V | undefined
  set(key: K, value: V): void
  delete(key: K): boolean
  clear(): void
  /** Removes every entry `drop` says to (a workspace's keys after a revocation). */
  prune(drop: (value: V, key: K) => boolean): void
  readonly size: number
}

export function createLru<K, V>(max: number): Lru<K, V> {
  const map = new Map<K, V>()
  return {
    get(key) {
      const value = map.get(key)
      if (value === undefined) return undefined
      map.delete(key)
      map.set(key, value)
      return value
    },
    set(key, value) {
      map.delete(key)
      map.set(key, value)
      if (map.size > max) map.delete(map.keys().next().value as K)
    },
    delete: (key) => map.delete(key),
    clear: () => map.clear(),
    prune(drop) {
      for (const [key, value] of map) if (drop(value, key)) map.delete(key)
    },
    get size() {
      return map.size
    },
  }
}
