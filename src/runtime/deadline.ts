/**
 * Shared deadline slots: how an attempt gets an AbortSignal, and its policy a deadline, without a
 * timer and an AbortSignal of its own.
 *
 * On Node 20 creating an AbortSignal costs several microseconds and a timer about one, more than
 * the rest of a successful call. But attempts that must stop at the same millisecond can share
 * both: an attempt joins the slot of the whole millisecond its deadline (or attempt timeout) falls
 * in, and the slot fires at the start of that millisecond, so never late and never more than 1 ms
 * early, which is the precision of a Node timer anyway. A slot's AbortSignal is created only when
 * an attempt reads `ctx.signal`; its timer is created once per slot, and cleared once the current
 * chain of promise reactions is over if no attempt uses the slot any more.
 *
 * Attempts whose caller passed a signal share slots only with attempts of the same caller signal
 * (one set of slots per signal, listening to it once), since the caller's abort must reach exactly
 * the attempts it governs.
 */

/** What a slot tells when it fires or its caller aborts. */
export interface SlotMember {
  /** Index in the slot's member list, so leaving is O(1). */
  slotIndex: number;
  /** `byCaller`: the caller's signal aborted; otherwise the slot's time came. */
  expire(reason: unknown, byCaller: boolean): void;
}

function timeoutReason(): DOMException {
  return new DOMException('The retry policy deadline or attempt timeout elapsed', 'TimeoutError');
}

function fire(slot: Slot): void {
  slot.wheel.fire(slot);
}

function expireAll(slot: Slot, reason: unknown, byCaller: boolean): void {
  // Members leave (and clear their entries) while being told; tell the ones present now.
  const members = slot.members.slice(0, slot.top);
  for (const member of members) member?.expire(reason, byCaller);
}

function sweep(wheel: Wheel): void {
  wheel.sweep();
}

export class Slot {
  refs = 0;
  /** Members in `[0, top)`; an entry is cleared when its member leaves. */
  members: (SlotMember | undefined)[] = [];
  top = 0;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Listed among the wheel's idle slots. */
  idle = false;
  done = false;
  aborted = false;
  reason: unknown = undefined;
  #controller: AbortController | undefined = undefined;

  constructor(
    readonly wheel: Wheel,
    readonly key: number,
  ) {}

  get signal(): AbortSignal {
    let controller = this.#controller;
    if (controller === undefined) {
      controller = new AbortController();
      this.#controller = controller;
      // Read after the slot fired: the attempt must still see why it was stopped.
      if (this.aborted) controller.abort(this.reason);
    }
    return controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
  }
}

export class Wheel {
  #slots = new Map<number, Slot>();
  #idle: Slot[] = [];
  #sweepScheduled = false;
  /** The timer API the slots were armed with; a different one (fake timers) starts afresh. */
  #setTimeout: typeof setTimeout = globalThis.setTimeout;

  constructor(readonly source: AbortSignal | undefined) {}

  /**
   * Joins the slot of `abortAt` (monotonic ms); `now` is the current monotonic time. The member
   * must `leave` once its attempt settles.
   */
  join(abortAt: number, now: number, member: SlotMember): Slot {
    if (globalThis.setTimeout !== this.#setTimeout) this.#reset();
    const key = Math.floor(abortAt);
    let slot = this.#slots.get(key);
    if (slot === undefined) slot = this.#create(key, now);
    slot.refs++;
    member.slotIndex = slot.top;
    slot.members[slot.top++] = member;
    return slot;
  }

  leave(slot: Slot, member: SlotMember): void {
    slot.members[member.slotIndex] = undefined;
    if (--slot.refs > 0 || slot.done) return;
    // Every member has left: the next ones reuse the list from the start.
    slot.top = 0;
    if (!slot.idle) {
      slot.idle = true;
      this.#idle.push(slot);
      if (!this.#sweepScheduled) {
        this.#sweepScheduled = true;
        setImmediate(sweep, this);
      }
    }
  }

  #create(key: number, now: number): Slot {
    const slot = new Slot(this, key);
    const delay = key - now;
    slot.timer = setTimeout(fire, delay > 0 ? delay : 0, slot);
    this.#slots.set(key, slot);
    return slot;
  }

  /**
   * Disposes of the slots nobody uses any more. Runs once the current chain of promise reactions
   * is over, so a tight loop of calls that settle at once keeps reusing its slot, while a slot
   * whose attempts all ended in earlier I/O callbacks holds no timer for long.
   */
  sweep(): void {
    this.#sweepScheduled = false;
    for (const slot of this.#idle) {
      slot.idle = false;
      if (slot.refs === 0 && !slot.done) this.#dispose(slot);
    }
    this.#idle.length = 0;
  }

  #dispose(slot: Slot): void {
    slot.done = true;
    if (slot.timer !== undefined) clearTimeout(slot.timer);
    slot.timer = undefined;
    if (this.#slots.get(slot.key) === slot) this.#slots.delete(slot.key);
  }

  fire(slot: Slot): void {
    slot.timer = undefined;
    this.#dispose(slot);
    // Nobody is waiting: an attempt that already settled keeps an unaborted signal.
    if (slot.refs === 0) return;
    const reason = timeoutReason();
    slot.abort(reason);
    expireAll(slot, reason, false);
  }

  /** The caller's signal aborted: every slot of this wheel stops now. */
  handleEvent(): void {
    const reason = this.source?.reason;
    const slots = [...this.#slots.values()];
    this.#slots.clear();
    this.#idle.length = 0;
    for (const slot of slots) {
      this.#dispose(slot);
      slot.abort(reason);
      expireAll(slot, reason, true);
    }
  }

  #reset(): void {
    this.#setTimeout = globalThis.setTimeout;
    this.#slots = new Map();
    this.#idle = [];
    this.#sweepScheduled = false;
  }
}

const shared = new Wheel(undefined);
const bySignal = new WeakMap<AbortSignal, Wheel>();

/** The wheel for attempts under `signal` (the caller's), or the process-wide one without. */
export function wheelFor(signal: AbortSignal | undefined): Wheel {
  if (signal === undefined) return shared;
  let wheel = bySignal.get(signal);
  if (wheel === undefined) {
    wheel = new Wheel(signal);
    bySignal.set(signal, wheel);
    signal.addEventListener('abort', wheel, { once: true });
  }
  return wheel;
}
