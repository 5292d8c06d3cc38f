// The solve's residual chart: every path's relative residual history on one log-scale chart.
//
// uPlot rather than Chart.js: it is a small (~50 kB), dependency-free, actively maintained canvas
// chart made for long numeric series, with a true log10 axis and cheap setData() for live updates
// while the solvers iterate; Chart.js would be 4× the bundle for features this page does not use.
import uPlot from 'uplot';
import { PATHS, type Path } from './runtime.js';

/** One line per path; the later ones thinner and dashed on top, so all show where the histories coincide. */
const LINES: Record<Path, uPlot.Series> = {
  cpu: { label: 'CPU (wasm SIMD × workers)', stroke: '#1565c0', width: 5, spanGaps: true },
  webgpu: { label: 'WebGPU (WGSL compute)', stroke: '#2e7d32', width: 3, dash: [10, 4], spanGaps: true },
  webgl2: { label: 'WebGL2 (fragment shaders)', stroke: '#e65100', width: 1.5, dash: [4, 4], spanGaps: true },
};

export class ResidualChart {
  private plot: uPlot;
  private series = empty();
  private pending = false;

  constructor(private readonly host: HTMLElement) {
    this.plot = new uPlot(this.options(), [[], ...PATHS.map(() => [])], host);
    new ResizeObserver(() => this.plot.setSize(this.size())).observe(host);
  }

  private size() {
    return { width: Math.max(300, this.host.clientWidth - 8), height: 260 };
  }

  private options(): uPlot.Options {
    return {
      ...this.size(),
      title: 'solve: relative residual per iteration (the method\'s recurrence; the panels give the true one)',
      scales: { x: { time: false }, y: { distr: 3 } },
      axes: [
        { label: 'iteration' },
        { label: 'relative residual', size: 70, values: (_u, ticks) => ticks.map((t) => (t == null ? '' : t.toExponential(0))) },
      ],
      series: [{ label: 'iteration' }, ...PATHS.map((p) => LINES[p])],
      legend: { live: false },
    };
  }

  clear(): void {
    this.series = empty();
    this.redraw();
  }

  push(path: Path, iteration: number, relRes: number): void {
    this.series[path][iteration] = relRes > 0 ? relRes : Number.MIN_VALUE;
    if (!this.pending) {
      this.pending = true;
      requestAnimationFrame(() => this.redraw());
    }
  }

  /** sets a whole history (the solver's own record, replacing the live points) */
  set(path: Path, history: number[]): void {
    this.series[path] = history.map((r) => (r > 0 ? r : Number.MIN_VALUE));
    this.redraw();
  }

  private redraw(): void {
    this.pending = false;
    const n = Math.max(...PATHS.map((p) => this.series[p].length));
    const xs = Array.from({ length: n }, (_, i) => i);
    const col = (s: number[]) => xs.map((i) => s[i] ?? null);
    this.plot.setData([xs, ...PATHS.map((p) => col(this.series[p]))] as uPlot.AlignedData);
  }
}

function empty(): Record<Path, number[]> {
  return { cpu: [], webgpu: [], webgl2: [] };
}
