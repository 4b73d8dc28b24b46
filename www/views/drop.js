// Getting files into the page: a drop zone (files and whole folders, through
// DataTransferItem.webkitGetAsEntry recursion), a folder picker (<input webkitdirectory>) and a
// plain multi-file picker. Every path keeps the dropped folder's name ("db.d/meta.db") so the engine
// can group files into datasets.

/** Paths and Files from a drop. Entries must be taken synchronously, inside the drop event. */
export async function filesFromDataTransfer(dt) {
  const entries = [];
  const loose = [];
  for (const item of dt.items ? Array.from(dt.items) : []) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry ? item.webkitGetAsEntry() : null;
    if (entry) entries.push(entry);
    else {
      const f = item.getAsFile();
      if (f) loose.push({ path: f.name, file: f });
    }
  }
  if (!entries.length && !loose.length && dt.files) {
    for (const f of dt.files) loose.push({ path: f.name, file: f });
  }
  const out = [...loose];
  for (const e of entries) await walkEntry(e, out);
  return out;
}

/** Depth-first walk with an explicit stack (deep folders must not overflow the call stack). */
async function walkEntry(root, out) {
  const stack = [root];
  while (stack.length) {
    const entry = stack.pop();
    if (entry.isFile) {
      const file = await new Promise((res, rej) => entry.file(res, rej));
      out.push({ path: entry.fullPath.replace(/^\/+/, ''), file });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      // readEntries returns the listing in batches until it returns an empty one.
      for (;;) {
        const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
        if (!batch.length) break;
        stack.push(...batch);
      }
    }
  }
}

/** Paths and Files from an <input type=file>: folder pickers give webkitRelativePath. */
export function filesFromInput(input) {
  return Array.from(input.files || []).map((f) => ({ path: f.webkitRelativePath || f.name, file: f }));
}

/**
 * Wires the drop zone, the whole-window drop target and both pickers to `onFiles(list)`.
 * The zone is keyboard accessible: Enter or Space opens the file picker.
 */
export function setupDrop({ zone, overlay, fileInput, folderInput, fileButton, folderButton, onFiles, onError }) {
  const deliver = (list) => {
    if (list.length) onFiles(list);
  };
  fileButton.addEventListener('click', () => fileInput.click());
  folderButton.addEventListener('click', () => folderInput.click());
  zone.addEventListener('click', () => fileInput.click());
  zone.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      fileInput.click();
    }
  });
  for (const input of [fileInput, folderInput]) {
    input.addEventListener('change', () => {
      const list = filesFromInput(input);
      input.value = '';
      deliver(list);
    });
  }
  let depth = 0;
  const hasFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files');
  window.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    overlay.hidden = false;
    zone.classList.add('over');
  });
  window.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  });
  window.addEventListener('dragleave', (e) => {
    if (!hasFiles(e)) return;
    depth = Math.max(0, depth - 1);
    if (!depth) {
      overlay.hidden = true;
      zone.classList.remove('over');
    }
  });
  window.addEventListener('drop', async (e) => {
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    zone.classList.remove('over');
    if (!e.dataTransfer) return;
    try {
      deliver(await filesFromDataTransfer(e.dataTransfer));
    } catch (err) {
      onError(err);
    }
  });
}
