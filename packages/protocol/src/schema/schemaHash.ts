/**
 * FNV-1a (32-bit) over a string's UTF-16 code units. Used for the schema hash: stable across
 * runtimes and releases, which a built-in hash would not promise.
 */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
