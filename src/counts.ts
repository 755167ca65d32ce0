// Counts as people read them, shared by the views and the messages operations write.

/** `10,000`: counts are read at a glance. */
export function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** `1 number`, `10,000 numbers`: the noun agrees with the count. */
export function counted(value: number, noun: string, plural = `${noun}s`): string {
  return `${count(value)} ${value === 1 ? noun : plural}`;
}
