import { describe, expect, it } from 'vitest';
import { CAPABILITY_STATUSES, TASKS, type CapabilityStatus, type TaskKey } from '../../../src/modules/aggregation/constants.js';
import { statusBit, statusBitsOf, statusMask } from '../../../src/modules/aggregation/status-bits.js';

const all = TASKS.flatMap((task) => CAPABILITY_STATUSES.map((status) => [task, status] as const));
const capabilities = (statuses: Partial<Record<TaskKey, CapabilityStatus>>) =>
  Object.fromEntries(TASKS.map((task) => [task, { status: statuses[task] ?? 'untested' }])) as Record<TaskKey, { status: CapabilityStatus }>;

describe('status bits', () => {
  it('gives each task and status its own bit, all exact in a number and a bigint', () => {
    const bits = all.map(([task, status]) => statusBit(task, status));
    expect(new Set(bits).size).toBe(42);
    for (const bit of bits) expect(Math.log2(bit) % 1).toBe(0);
    expect(statusBitsOf(capabilities(Object.fromEntries(TASKS.map((t) => [t, 'untested']))))).toBeLessThan(2 ** 42);
    expect(statusBit('ACCESS', 'supported')).toBe(1);
    expect(statusBit('CART', 'blocked')).toBe(2 ** (4 * 6 + 2));
  });

  it('matches a summary exactly when its task has one of the statuses asked for', () => {
    const bits = statusBitsOf(capabilities({ ACCESS: 'supported', CART: 'blocked', LOGIN: 'unknown' }));
    for (const [task, status] of all) {
      const has = (task === 'ACCESS' && status === 'supported') || (task === 'CART' && status === 'blocked') ||
        (task === 'LOGIN' && status === 'unknown') || (!['ACCESS', 'CART', 'LOGIN'].includes(task) && status === 'untested');
      // As the SQL reads it: (status_bits & mask) <> 0.
      expect(Number(BigInt(bits) & BigInt(statusMask(task, [status]))) !== 0, `${task}:${status}`).toBe(has);
    }
    expect(Number(BigInt(bits) & BigInt(statusMask('CART', ['unsupported', 'blocked', 'blocked'])))).not.toBe(0);
    expect(Number(BigInt(bits) & BigInt(statusMask('CART', ['supported', 'partial'])))).toBe(0);
  });
});
