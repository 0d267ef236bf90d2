/**
 * The input probe's timing at its real defaults (2 s of quiet before asking, 10 s for the answer),
 * under fake timers: what is sent when, and when a rank counts as unresponsive.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_INPUT_PROBE_TIMING, InputProbe, type UnresponsiveRank } from '../../src/engine/input-probe.js';
import { VLLM_INPUT_PROBE } from '../../src/engine/vllm-input-probe.js';
import { decode } from '@msgpack/msgpack';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function rig(ranks = [0]) {
  const inFlight = new Map<number, number>();
  const sent: Array<{ rank: number; callId: number }> = [];
  const dead: UnresponsiveRank[] = [];
  const probe = new InputProbe(
    VLLM_INPUT_PROBE,
    DEFAULT_INPUT_PROBE_TIMING,
    ranks,
    {
      inFlightByRank: () => inFlight,
      send: (rank, frames) => {
        // UTILITY (0x03) with [client_index, call_id, method, args] (wire-vllm §3.7).
        expect(frames).toHaveLength(2);
        expect([...frames[0]]).toEqual([0x03]);
        const [clientIndex, callId, method, args] = decode(frames[1]) as [number, number, string, unknown[]];
        expect({ clientIndex, method, args }).toEqual({ clientIndex: 0, method: 'get_supported_tasks', args: [] });
        sent.push({ rank, callId });
      },
      unresponsive: (d) => dead.push(d),
    },
    () => Date.now(),
  );
  const submit = (rank: number) => {
    inFlight.set(rank, (inFlight.get(rank) ?? 0) + 1);
    probe.submitted(rank, Date.now());
  };
  return { probe, inFlight, sent, dead, submit };
}

describe('input probe at the default timing', () => {
  it('asks after 2 s of quiet and declares the rank unresponsive 10 s later', async () => {
    const r = rig();
    r.submit(0);
    await vi.advanceTimersByTimeAsync(1999);
    expect(r.sent).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.sent).toEqual([{ rank: 0, callId: 1 }]);
    await vi.advanceTimersByTimeAsync(9999);
    expect(r.dead).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.dead).toEqual([{ rank: 0, callId: 1, quietMs: 12_000, inFlight: 1 }]);
    // Stopped: nothing more is sent.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(r.sent).toHaveLength(1);
  });

  it('an answer (or any message from the rank) ends the wait; the next question comes after 2 s more of quiet', async () => {
    const r = rig();
    r.submit(0);
    await vi.advanceTimersByTimeAsync(2000);
    expect(r.probe.isOurCall(r.sent[0].callId)).toBe(true);
    await vi.advanceTimersByTimeAsync(9000);
    r.probe.heard(0, Date.now()); // the reply
    await vi.advanceTimersByTimeAsync(1999);
    expect(r.sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.sent.map((s) => s.callId)).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(r.dead).toHaveLength(1);
  });

  it('never asks a rank that keeps sending, however long its requests run', async () => {
    const r = rig();
    r.submit(0);
    for (let t = 0; t < 120_000; t += 500) {
      await vi.advanceTimersByTimeAsync(500);
      r.probe.heard(0, Date.now());
    }
    expect(r.sent).toHaveLength(0);
    expect(r.dead).toHaveLength(0);
  });

  it('never asks an idle rank, and forgets a question when its requests are gone', async () => {
    const r = rig();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(r.sent).toHaveLength(0);
    r.submit(0);
    await vi.advanceTimersByTimeAsync(2000);
    expect(r.sent).toHaveLength(1);
    r.inFlight.set(0, 0); // aborted by its client
    await vi.advanceTimersByTimeAsync(60_000);
    expect(r.dead).toHaveLength(0);
    // The quiet spell of the next request starts at its submit, not at the old silence.
    r.submit(0);
    await vi.advanceTimersByTimeAsync(1999);
    expect(r.sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.sent).toHaveLength(2);
  });

  it('only the quiet rank of a group is asked', async () => {
    const r = rig([0, 1]);
    r.submit(0);
    r.submit(1);
    for (let t = 0; t < 4000; t += 500) {
      await vi.advanceTimersByTimeAsync(500);
      r.probe.heard(0, Date.now());
    }
    expect(r.sent.map((s) => s.rank)).toEqual([1]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(r.dead.map((d) => d.rank)).toEqual([1]);
  });
});
