// The trace view's engine calls: Session methods (src/wasm/) through `engine.call`, shaped as
// the view asks for them (a frame with its axis ticks, a summary with its shares).

/** The frame query `q` of the view as the engine's frame (session::FrameRequest, rows apart). */
const frameOf = (q) => ({ t0_ns: q.t0, t1_ns: q.t1, width: q.width, height: q.height, depth: q.depth });

/** The engine calls of the view, as Session methods (src/wasm/) through `engine.call`. */
export function sessionApi(engine) {
  return {
    timelineMeta: (id) => engine.call('timeline_meta', id),
    timelineRows: (id, pattern, minSamples, groupBy) =>
      engine.call('timeline_rows', id, pattern, minSamples, groupBy),
    async timelineBegin(id, slot, q, budgetMs) {
      const [[packed, progress], ticks] = await Promise.all([
        engine.call('timeline_begin', id, slot, Uint32Array.from(q.rows), frameOf(q), budgetMs),
        engine.call('timeline_ticks', q.t0, q.t1, q.ticks ?? 8),
      ]);
      return { packed, ticks, progress };
    },
    async timelineRefine(id, slot, budgetMs) {
      const [packed, progress] = await engine.call('timeline_refine', id, slot, false, budgetMs);
      return { packed, progress };
    },
    async timelineFrame(id, q) {
      const [packed, ticks] = await Promise.all([
        engine.call('timeline_frame', id, Uint32Array.from(q.rows), frameOf(q), q.keep !== false),
        engine.call('timeline_ticks', q.t0, q.t1, q.ticks ?? 8),
      ]);
      return { packed, ticks };
    },
    timelineCallPath: (id, line, t) => engine.call('timeline_call_path', id, line, t),
    sourceLocation: (id, node) => engine.call('source_location', id, node),
    timelineDepth: (id, line, t0, t1, width, maxDepth) =>
      engine.call('timeline_depth', id, { line, t0_ns: t0, t1_ns: t1, width }, maxDepth),
    async timelineSummary(id) {
      const [packed, shares] = await Promise.all([
        engine.call('timeline_summary', id),
        engine.call('timeline_shares', id),
      ]);
      return { packed, shares };
    },
  };
}
