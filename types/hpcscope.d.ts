// Types of the hpcscope package (www/embed/index.js): the engine as a library and the
// <hpcscope-view> element. Hand-written; the raw wasm bindings have their own (hpcscope/wasm).

/** A dataset as the engine summarises it (src/session/workspace.rs DatasetSummary). */
export interface DatasetSummary {
  id: number;
  format: string;
  format_name: string;
  layout: string;
  title: string;
  root: string;
  status: 'opened' | 'probed' | 'failed';
  counts: [string, number][];
  facts: [string, string][];
  files: { path: string; size: number }[];
  total_bytes: number;
  warnings: { message: string }[];
  error: EngineError | null;
  [key: string]: unknown;
}

export interface EngineError {
  kind: string;
  file: string;
  what: string;
  message: string;
  offset?: number | null;
  offset_hex?: string | null;
}

export interface OpenReport {
  datasets: DatasetSummary[];
  errors: EngineError[];
  ignored: string[];
  elapsed_ms?: number;
}

export interface Progress {
  phase: 'reading' | 'parsing' | string;
  done: number;
  total: number;
  file: string;
}

/** Files to open: File / FileList / Blob, or named bytes or Blobs. */
export type Inputs =
  | FileList
  | Blob
  | (File | Blob | string | URL | { path?: string; name?: string; bytes?: Uint8Array | ArrayBuffer; file?: Blob })[];

export interface MetricInfo {
  index: number;
  name: string;
  unit: string;
  [key: string]: unknown;
}

export interface ProfileMeta {
  metrics: MetricInfo[];
  profiles: { index: number; label: string; summary: boolean }[];
  has_summary: boolean;
  contexts: number;
  default_metric: number;
  names: string[];
  modules: string[];
}

export interface FlameRect {
  node: number;
  depth: number;
  /** Left edge and width as fractions of the zoomed root's width. */
  x: number;
  width: number;
  name: string;
  module: string | null;
  inclusive: number;
  exclusive: number;
  /** FLAME_MATCH | FLAME_INLINED | FLAME_LEXICAL */
  flags: number;
}

export interface TableRow {
  row: number;
  node: number;
  depth: number;
  label: string;
  hasChildren: boolean;
  expanded: boolean;
  /** One entry per metric of ProfileMeta.metrics. */
  values: { inclusive: number; exclusive: number }[];
}

export interface EngineOptions {
  /** Makes the engine Worker (default: www/worker.js next to the package's engine.js). */
  createWorker?: () => Worker;
  /** The compiled engine (or its bytes), for Workers that cannot fetch pkg/. */
  wasm?: WebAssembly.Module | Uint8Array | null;
}

/** The page-side engine proxy (www/engine.js): one dedicated Worker running the wasm core. */
export class Engine {
  constructor(options?: EngineOptions);
  readonly ready: Promise<{ version: string }>;
  readonly terminated: boolean;
  openFiles(files: { path: string; file?: Blob; bytes?: Uint8Array | ArrayBuffer }[], onProgress?: (p: Progress) => void): Promise<OpenReport>;
  openUrl(url: string, name?: string, onProgress?: (p: Progress) => void, limits?: { wholeLimit?: number; noRangeLimit?: number }): Promise<OpenReport>;
  openExample(): Promise<OpenReport>;
  netStats(): Promise<{ requests: number; bytes: number; wasm_memory_bytes: number | null }>;
  remove(id: number): Promise<boolean>;
  /** Any Session method of src/wasm/ by name. */
  call(method: string, ...args: unknown[]): Promise<any>;
  terminate(): void;
}

export const FLAME_MATCH: 1;
export const FLAME_INLINED: 2;
export const FLAME_LEXICAL: 4;

/** The engine as a library: open data, then ask for summaries, flame layouts, tables, exports. */
export class HpcscopeEngine {
  constructor(options?: EngineOptions);
  readonly engine: Engine;
  readonly ready: Promise<{ version: string }>;
  /** A database folder or file URL (read on demand with HTTP Range requests), or files. */
  open(input: string | URL | Inputs, options?: { name?: string; limits?: { wholeLimit?: number; noRangeLimit?: number }; onProgress?: (p: Progress) => void }): Promise<OpenReport>;
  openExample(): Promise<OpenReport>;
  summaries(): Promise<DatasetSummary[]>;
  summary(id: number): Promise<DatasetSummary | undefined>;
  remove(id: number): Promise<boolean>;
  profileMeta(id: number): Promise<ProfileMeta>;
  selectProfiles(id: number, kind?: 'summary' | 'profile' | 'subset', indices?: number[]): Promise<void>;
  flame(id: number, options?: {
    metric?: number; merged?: boolean; heavy?: boolean; zoom?: number; x0?: number; x1?: number;
    depth0?: number; depth1?: number; widthPx?: number; minWidthPx?: number;
  }): Promise<{ metric: number; maxDepth: number; rects: FlameRect[] }>;
  table(id: number, options?: {
    kind?: 'topdown' | 'bottomup' | 'flat'; metric?: number; exclusive?: boolean; descending?: boolean;
    expand?: 'hot' | 'all' | 'none'; share?: number; maxRows?: number; start?: number; count?: number;
  }): Promise<{ metric: number; length: number; rows: TableRow[] }>;
  nodeInfo(id: number, node: number, metric?: number): Promise<Record<string, unknown>>;
  search(id: number, pattern: string, options?: { regex?: boolean; ignoreCase?: boolean }): Promise<Record<string, unknown>>;
  distribution(id: number, node: number, options?: { metric?: number; exclusive?: boolean }): Promise<{ profiles: Uint32Array; values: Float64Array }>;
  timelineMeta(id: number): Promise<Record<string, unknown>>;
  export(id: number, format: 'speedscope' | 'chrome' | 'folded' | 'csv', metric?: string): Promise<{ text: string; extension: string; mime: string }>;
  call(method: string, ...args: unknown[]): Promise<any>;
  terminate(): void;
}

export function createEngine(options?: EngineOptions): HpcscopeEngine;

export interface ViewState {
  datasets: { id: number; title: string; root: string; format: string; layout: string; status: string }[];
  selected: number | null;
  view: string | null;
  /** What the shown view reports about itself (the page's hpcscope.state().views[view]). */
  viewState: Record<string, any> | null;
  errors: string[];
  workerRunning: boolean;
}

/**
 * <hpcscope-view src="URL" view="profile|timeline|summary|histogram" views="summary profile ..."
 * metric="INDEX|NAME" node="CONTEXT" height="480|60vh" name="TITLE">. Events: `hpcscope-open`
 * (detail: OpenReport), `hpcscope-error` (detail: {message}).
 */
export class HpcscopeView extends HTMLElement {
  open(input: string | URL | Inputs, name?: string): Promise<OpenReport>;
  readonly engine: Engine | null;
  readonly workerRunning: boolean;
  view(): Record<string, any> | null;
  whenReady(): Promise<void>;
  state(): ViewState;
}

export function defineElement(name?: string): void;

/** For pages that cannot serve the package's files (reports opened from file://). */
export function configure(options: { css: string; createWorker: () => Worker; wasm: WebAssembly.Module | Uint8Array }): void;

declare global {
  interface HTMLElementTagNameMap {
    'hpcscope-view': HpcscopeView;
  }
}
