// One step of a test waiting for another: a promise the test resolves when it chooses.

/** `reached` resolves once `fire` is called. */
export function signal(): { reached: Promise<void>; fire: () => void } {
  let fire = (): void => {};
  const reached = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { reached, fire };
}
