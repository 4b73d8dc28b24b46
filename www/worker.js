// The dedicated Worker that runs the wasm engine, so the page never freezes while parsing.
// All of its logic lives in engine.js (the only module that knows the wasm package).
import { serveWorker } from './engine.js';

serveWorker();
