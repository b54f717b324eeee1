// The error a promise rejects with, asserted to be of the expected class (a promise that
// resolves fails the test), so a test can go on to check its message.
import { expect } from 'vitest';

export async function rejectionOf<E extends Error>(p: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(type);
  return e as E;
}
