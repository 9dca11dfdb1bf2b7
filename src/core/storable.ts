// What PostgreSQL can store in text and json: neither U+0000 nor an unpaired
// surrogate (both refuse them), so they are refused at the edge, naming the
// field, rather than failing in the driver with a 500.
export const storable = (s: string) => !s.includes('\0') && s.isWellFormed()
export const STRING_RULE = 'must not contain U+0000 or unpaired surrogates'
