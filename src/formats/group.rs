//! Groups dropped files into datasets: files are gathered by folder (a database's `metrics/`,
//! `src/`, hpcrun's `structs/` ... count as their parent's), and the first format in
//! [`super::FORMATS`] that claims a folder's files makes them one dataset.

use super::{base_name, detect_file, head_of, FileKind, Format, InputFile, FORMATS};
use crate::model::FileEntry;

/// Files that form one dataset, with the folder they share.
#[derive(Clone)]
pub struct DatasetGroup {
    pub format: &'static dyn Format,
    /// Folder the dataset's files share ("" for files dropped loose).
    pub root: String,
    pub files: Vec<(FileKind, InputFile)>,
}

impl std::fmt::Debug for DatasetGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatasetGroup")
            .field("format", &self.format.id())
            .field("root", &self.root)
            .field("files", &self.files)
            .finish()
    }
}

impl DatasetGroup {
    /// The format id of the dataset ("hpctoolkit", "uftrace" ...).
    pub fn format_id(&self) -> &'static str {
        self.format.id()
    }
    /// The dataset's files as its summary lists them: path and size.
    pub fn file_entries(&self) -> Vec<FileEntry> {
        self.files
            .iter()
            .map(|(_, f)| FileEntry {
                path: f.path.clone(),
                size: f.source.len(),
            })
            .collect()
    }
    /// The first file of a kind.
    pub fn file(&self, kind: FileKind) -> Option<&InputFile> {
        self.files.iter().find(|(k, _)| *k == kind).map(|(_, f)| f)
    }
    /// All files of a kind, in path order.
    pub fn files_of(&self, kind: FileKind) -> impl Iterator<Item = &InputFile> {
        self.files
            .iter()
            .filter(move |(k, _)| *k == kind)
            .map(|(_, f)| f)
    }
}

fn parent_dir(path: &str) -> &str {
    match path.rfind('/') {
        Some(i) => &path[..i],
        None => "",
    }
}

/// The folder whose dataset a file belongs to: hpcrun's structs/ and an HPCToolkit database's
/// metrics/ and src/ belong to the folder above.
fn dataset_dir(path: &str) -> String {
    let mut dir = parent_dir(path).to_string();
    loop {
        let last = base_name(&dir);
        if matches!(
            last,
            "structs" | "metrics" | "src" | "gpubins" | "kernel_symbols" | "vdso"
        ) && !dir.is_empty()
        {
            dir = parent_dir(&dir).to_string();
        } else {
            break;
        }
    }
    // Files deep under a database's src/ folder: attach to the folder that holds src/.
    if let Some(i) = dir
        .find("/src/")
        .or_else(|| dir.starts_with("src/").then_some(0))
    {
        dir = if i == 0 {
            String::new()
        } else {
            dir[..i].to_string()
        };
    }
    dir
}

/// The format a file's kind belongs to, when that format makes a dataset of each of its files.
fn single_file_format(kind: FileKind) -> Option<&'static dyn Format> {
    FORMATS
        .iter()
        .copied()
        .find(|f| f.one_dataset_per_file() && f.id() == kind.format)
}

/// Groups dropped files into datasets by folder and format. Returns the datasets and the paths of
/// files that belong to none (unrecognised files, or companions without a dataset).
pub fn group(files: Vec<InputFile>) -> (Vec<DatasetGroup>, Vec<String>) {
    use std::collections::BTreeMap;
    let mut by_dir: BTreeMap<String, Vec<(FileKind, InputFile)>> = BTreeMap::new();
    for f in files {
        let kind = detect_file(&f.path, &head_of(&f.source));
        by_dir
            .entry(dataset_dir(&f.path))
            .or_default()
            .push((kind, f));
    }
    let mut groups = Vec::new();
    let mut loose = Vec::new();
    for (dir, mut files) in by_dir {
        crate::sort::sort_by(&mut files, |a, b| a.1.path.cmp(&b.1.path));
        let format = FORMATS
            .iter()
            .copied()
            .find(|f| !f.one_dataset_per_file() && f.claims(&files));
        // Files of a one-file-per-dataset format are datasets of their own, even beside another.
        let (singles, rest): (Vec<_>, Vec<_>) = files
            .into_iter()
            .partition(|(k, _)| single_file_format(*k).is_some());
        for (kind, f) in singles {
            if let Some(format) = single_file_format(kind) {
                groups.push(DatasetGroup {
                    format,
                    root: f.path.clone(),
                    files: vec![(kind, f)],
                });
            }
        }
        match format {
            Some(format) => groups.push(DatasetGroup {
                format,
                root: dir,
                files: rest,
            }),
            None => loose.extend(rest.into_iter().map(|(_, f)| f.path)),
        }
    }
    (groups, loose)
}
