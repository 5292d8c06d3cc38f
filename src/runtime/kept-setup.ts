/**
 * What rt.solve sets up for a matrix — a direct factor, a preconditioner (IC(0), ILU(0), SSOR, block
 * Jacobi, an AMG hierarchy) — kept with the matrix for its next solves, as PETSc's KSPSolve keeps its
 * PC while the operator is unchanged: an uploaded matrix never changes, so the set-up stays right
 * until the matrix is disposed. A time-stepping loop's rt.solve(A, bₖ) then pays its set-up once
 * (poisson2D(1024) on 2 cores: 332 ms a solve with the kept AMG, 636 ms setting it up again).
 */
import type { MatrixHandle } from './handles.js';
import type { PreconditionerHandle } from './preconditioner.js';
import type { Factorization } from '../solvers/direct/factor.js';

/** One kept set-up: freed when retired (replaced by another kind, or its matrix disposed) once no solve uses it. */
export class KeptSetup<T extends { dispose(): void }> {
  private users = 0;
  private retired = false;
  /** the turns of `exclusive` users, one after another */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    /** what it is (a preconditioner kind, 'direct') */
    readonly key: string,
    readonly value: T,
  ) {}

  /** Marks it in use by a solve until the returned function is called. */
  use(): () => void {
    this.users++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.users === 0 && this.retired) this.value.dispose();
    };
  }

  /**
   * In use by one solve at a time: the factor's solve leaves its row sums for the caller's residual
   * bound (Factorization.rowwiseBound), which a solve run in between would overwrite.
   */
  async exclusive(): Promise<() => void> {
    const release = this.use();
    const before = this.queue;
    let open!: () => void;
    this.queue = new Promise((r) => (open = r));
    await before;
    return () => {
      release();
      open();
    };
  }

  /** No later solve takes it; freed now, or when the last solve using it ends. */
  retire(): void {
    if (this.retired) return;
    this.retired = true;
    if (this.users === 0) this.value.dispose();
  }
}

/** A matrix's kept set-ups: the last factor and the last preconditioner its solves made. */
export interface KeptSetups {
  factor?: KeptSetup<Factorization>;
  preconditioner?: KeptSetup<PreconditionerHandle>;
}

/** What rt.solve's description adds where a set-up was kept from an earlier solve. */
export const KEPT_WORDS = 'set up by an earlier solve of A and kept with it';

/** every live matrix's kept set-ups, until it is disposed (its runtime holds the matrix as long) */
const held = new Map<MatrixHandle, KeptSetups>();

/** h's kept set-ups, retired with h (its dispose(), or its runtime's); null once h is disposed (nothing would free them). */
export function keptSetups(h: MatrixHandle): KeptSetups | null {
  if (h.disposed) return null;
  let s = held.get(h);
  if (!s) {
    const kept: KeptSetups = {};
    s = kept;
    held.set(h, kept);
    h.derived.push({
      dispose: () => {
        held.delete(h);
        drop(kept, 'factor');
        drop(kept, 'preconditioner');
      },
    });
  }
  return s;
}

/** h's kept set-ups where a solve made any (explain's look: none made). */
export function keptOf(h: MatrixHandle): KeptSetups | undefined {
  return held.get(h);
}

/**
 * Retires every set-up kept with a matrix of `owner` (its runtime): freed now where no solve uses it —
 * the CPU path's memory relief (WasmHeap.relieve) before a region it cannot grow for is refused.
 */
export function releaseKept(owner: unknown): void {
  for (const [h, s] of held) {
    if (h.owner !== owner) continue;
    drop(s, 'factor');
    drop(s, 'preconditioner');
  }
}

/** Empties the slot `which` of `s`, retiring what it held. */
export function drop(s: KeptSetups, which: keyof KeptSetups): void {
  s[which]?.retire();
  s[which] = undefined;
}

/** Keeps `value` in the slot `which` of `s`, retiring what it held. */
export function keep<W extends keyof KeptSetups>(s: KeptSetups, which: W, key: string, value: NonNullable<KeptSetups[W]>['value']): NonNullable<KeptSetups[W]> {
  const k = new KeptSetup(key, value) as NonNullable<KeptSetups[W]>;
  drop(s, which);
  s[which] = k;
  return k;
}
