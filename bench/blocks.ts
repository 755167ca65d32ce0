// Reading what the app sent to Slack: the stub process finds the buttons of its answers in the bodies as posted.

/** The value of the first element with this action_id anywhere in a Slack body. */
export function buttonValue(value: unknown, actionId: string): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = buttonValue(item, actionId);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (record.action_id === actionId && typeof record.value === 'string') return record.value;
  for (const child of Object.values(record)) {
    const found = buttonValue(child, actionId);
    if (found !== undefined) return found;
  }
  return undefined;
}
