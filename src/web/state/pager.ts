// A list the API gives a page at a time, behind a cursor: the first page,
// then each next one on demand, until the API answers no cursor.

export interface Page<T> {
  items: T[]
  nextCursor: string | null
}

export interface Pager<T> {
  /** Whether the API has a page after the last one read. */
  readonly more: boolean
  /** Reads the first page (again), forgetting where the pages read before ended. */
  first(): Promise<T[]>
  /** Reads the page after the last one read; nothing once there is none. */
  next(): Promise<T[]>
}

/** Pages of `read`, which reads the page at a cursor (undefined: the first). */
export function pager<T>(read: (cursor: string | undefined) => Promise<Page<T>>): Pager<T> {
  let cursor: string | null = null
  const take = async (at: string | undefined) => {
    const page = await read(at)
    cursor = page.nextCursor
    return page.items
  }
  return {
    get more() {
      return cursor !== null
    },
    first: () => take(undefined),
    next: async () => (cursor === null ? [] : take(cursor)),
  }
}
