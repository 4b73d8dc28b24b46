// The dedicated Worker that runs the wasm engine, so the page never freezes while parsing.
// All of its logic lives in worker-server.js (the only module that imports the wasm package).
import { serveWorker } from './worker-server.js';

serveWorker();
