// The CG residual chart: both paths' relative residual histories on one log-scale chart.
//
// uPlot rather than Chart.js: it is a small (~50 kB), dependency-free, actively maintained canvas
// chart made for long numeric series, with a true log10 axis and cheap setData() for live updates
// while the solvers iterate; Chart.js would be 4× the bundle for features this page does not use.
import uPlot from 'uplot';

export class ResidualChart {
  private plot: uPlot;
  private series: Record<'cpu' | 'gpu', number[]> = { cpu: [], gpu: [] };
  private pending = false;

  constructor(private readonly host: HTMLElement) {
    this.plot = new uPlot(this.options(), [[], [], []], host);
    new ResizeObserver(() => this.plot.setSize(this.size())).observe(host);
  }

  private size() {
    return { width: Math.max(300, this.host.clientWidth - 8), height: 260 };
  }

  private options(): uPlot.Options {
    return {
      ...this.size(),
      title: 'CG: relative residual ‖b − A·x‖ / ‖b‖ per iteration',
      scales: { x: { time: false }, y: { distr: 3 } },
      axes: [
        { label: 'iteration' },
        { label: 'relative residual', size: 70, values: (_u, ticks) => ticks.map((t) => (t == null ? '' : t.toExponential(0))) },
      ],
      series: [
        { label: 'iteration' },
        { label: 'CPU (wasm SIMD × workers)', stroke: '#1565c0', width: 4, spanGaps: true },
        // dashed on top, so both show where the histories coincide
        { label: 'GPU (WebGL2)', stroke: '#e65100', width: 2, dash: [8, 5], spanGaps: true },
      ],
      legend: { live: false },
    };
  }

  clear(): void {
    this.series = { cpu: [], gpu: [] };
    this.redraw();
  }

  push(path: 'cpu' | 'gpu', iteration: number, relRes: number): void {
    this.series[path][iteration] = relRes > 0 ? relRes : Number.MIN_VALUE;
    if (!this.pending) {
      this.pending = true;
      requestAnimationFrame(() => this.redraw());
    }
  }

  /** sets a whole history (the solver's own record, replacing the live points) */
  set(path: 'cpu' | 'gpu', history: number[]): void {
    this.series[path] = history.map((r) => (r > 0 ? r : Number.MIN_VALUE));
    this.redraw();
  }

  private redraw(): void {
    this.pending = false;
    const n = Math.max(this.series.cpu.length, this.series.gpu.length);
    const xs = Array.from({ length: n }, (_, i) => i);
    const col = (s: number[]) => xs.map((i) => s[i] ?? null);
    this.plot.setData([xs, col(this.series.cpu), col(this.series.gpu)] as uPlot.AlignedData);
  }
}
