// One path in the race: a card that shows its device, progress, then the figures, or why the path is
// unavailable. The figures are also written as data-* attributes so the end-to-end test can read them.

export interface PanelResult {
  kernelMs?: number;
  totalMs?: number;
  gflops?: number;
  gbs?: number;
  maxError?: number;
  residual?: number;
  rows?: Array<[string, string]>;
  message?: string;
}

export type PanelState = 'idle' | 'running' | 'done' | 'error' | 'unavailable';

const fmt = (v: number | undefined, digits = 3): string =>
  v === undefined || !Number.isFinite(v) ? '—' : v >= 1000 ? v.toFixed(0) : v >= 100 ? v.toFixed(1) : v.toPrecision(digits);
const sci = (v: number | undefined): string => (v === undefined || Number.isNaN(v) ? '—' : v.toExponential(2));

export class Panel {
  private status: HTMLElement;
  private progress: HTMLProgressElement;
  private body: HTMLElement;
  private message: HTMLElement;
  private subtitle: HTMLElement;
  private device: HTMLElement;
  result: PanelResult | null = null;

  constructor(readonly el: HTMLElement, title: string) {
    el.innerHTML = '';
    const h = document.createElement('h3');
    h.textContent = title;
    this.device = div('device');
    this.subtitle = div('sub');
    this.status = div('status');
    this.progress = document.createElement('progress');
    this.progress.max = 1;
    this.progress.hidden = true;
    this.body = div('figures');
    this.message = div('message');
    el.append(h, this.device, this.subtitle, this.status, this.progress, this.body, this.message);
    this.set('idle', 'ready');
  }

  /** Where the path runs; a software adapter is labelled as one, since its times are not a GPU's. */
  setDevice(name: string, software: boolean): void {
    this.device.textContent = name;
    this.el.dataset.device = name;
    this.el.dataset.software = String(software);
    if (software) {
      const b = document.createElement('span');
      b.className = 'software';
      b.textContent = 'software adapter';
      b.title = 'the shaders run on the CPU (a software renderer): its times show the path works, not a GPU’s speed';
      this.device.append(' ', b);
    }
  }

  setSubtitle(text: string): void {
    this.subtitle.textContent = text;
  }

  get state(): PanelState {
    return this.el.dataset.state as PanelState;
  }

  private set(state: PanelState, status: string): void {
    this.el.dataset.state = state;
    this.status.textContent = status;
  }

  reset(): void {
    this.result = null;
    for (const k of Object.keys(this.el.dataset)) if (!['path', 'state', 'device', 'software'].includes(k)) delete this.el.dataset[k];
    this.body.innerHTML = '';
    this.message.textContent = '';
    this.el.querySelector('.winner')?.remove();
  }

  unavailable(reason: string): void {
    this.reset();
    this.progress.hidden = true;
    this.set('unavailable', 'unavailable on this device');
    this.message.textContent = reason;
  }

  running(what: string, fraction?: number): void {
    this.set('running', what);
    this.progress.hidden = false;
    if (fraction === undefined) this.progress.removeAttribute('value');
    else this.progress.value = Math.max(0, Math.min(1, fraction));
  }

  error(message: string): void {
    this.progress.hidden = true;
    this.set('error', 'failed');
    this.message.textContent = message;
    this.el.dataset.error = message;
  }

  done(r: PanelResult): void {
    this.result = r;
    this.progress.hidden = true;
    this.set('done', 'done');
    const rows: Array<[string, string]> = [
      ['kernel time', `${fmt(r.kernelMs)} ms`],
      ['total time (upload + run + read back)', `${fmt(r.totalMs)} ms`],
      ['GFLOP/s', fmt(r.gflops)],
      ['effective GB/s', fmt(r.gbs)],
      ['max error vs f64', sci(r.maxError)],
    ];
    if (r.residual !== undefined) rows.push(['true residual ‖b−Ax‖/‖b‖ (f64)', sci(r.residual)]);
    rows.push(...(r.rows ?? []));
    const table = document.createElement('table');
    for (const [k, v] of rows) {
      const tr = table.insertRow();
      tr.insertCell().textContent = k;
      tr.insertCell().textContent = v;
    }
    this.body.replaceChildren(table);
    this.message.textContent = r.message ?? '';
    const d = this.el.dataset;
    if (r.kernelMs !== undefined) d.kernelMs = String(r.kernelMs);
    if (r.totalMs !== undefined) d.totalMs = String(r.totalMs);
    if (r.gflops !== undefined) d.gflops = String(r.gflops);
    if (r.gbs !== undefined) d.gbs = String(r.gbs);
    if (r.maxError !== undefined) d.maxError = String(r.maxError);
    if (r.residual !== undefined) d.residual = String(r.residual);
  }

  markWinner(ratio: number): void {
    const b = document.createElement('span');
    b.className = 'winner';
    b.textContent = ratio > 1.005 ? `fastest: ×${ratio < 10 ? ratio.toFixed(2) : ratio.toFixed(0)} over the next` : 'tie';
    this.el.querySelector('h3')!.append(b);
  }
}

function div(cls: string): HTMLDivElement {
  const d = document.createElement('div');
  d.className = cls;
  return d;
}
