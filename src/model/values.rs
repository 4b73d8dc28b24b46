//! Sparse metric values of one profile, as HPCToolkit stores them: for each node with any non-zero
//! value (ascending node index) a run of (value id, value) pairs.

/// Sparse values: `nodes[i]` owns pairs `starts[i]..starts[i+1]` of `ids`/`values`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SparseValues {
    pub nodes: Vec<u32>,
    pub starts: Vec<u32>,
    pub ids: Vec<u16>,
    pub values: Vec<f64>,
}

impl SparseValues {
    /// Builds from (node, value id, value) triples in any order; zero values are dropped and
    /// duplicates of a (node, id) pair are summed.
    pub fn from_triples(mut triples: Vec<(u32, u16, f64)>) -> SparseValues {
        triples.sort_unstable_by_key(|&(n, id, _)| (n, id));
        let mut out = SparseValues::default();
        for (n, id, v) in triples {
            if out.nodes.last() == Some(&n) && out.ids.last() == Some(&id) {
                *out.values.last_mut().expect("pair pushed with id") += v;
                continue;
            }
            if v == 0.0 {
                continue;
            }
            if out.nodes.last() != Some(&n) {
                out.nodes.push(n);
                out.starts.push(out.ids.len() as u32);
            }
            out.ids.push(id);
            out.values.push(v);
        }
        out.starts.push(out.ids.len() as u32);
        out
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Pairs of node `i` (position in `nodes`).
    fn run(&self, i: usize) -> (&[u16], &[f64]) {
        let (a, b) = (self.starts[i] as usize, self.starts[i + 1] as usize);
        (&self.ids[a..b], &self.values[a..b])
    }

    /// Value of `id` at `node`, 0 when absent.
    pub fn get(&self, node: u32, id: u16) -> f64 {
        match self.nodes.binary_search(&node) {
            Ok(i) => {
                let (ids, vals) = self.run(i);
                ids.iter()
                    .position(|&x| x == id)
                    .map(|j| vals[j])
                    .unwrap_or(0.0)
            }
            Err(_) => 0.0,
        }
    }

    /// Dense column of value `id` over `n_nodes` nodes.
    pub fn column(&self, id: u16, n_nodes: usize) -> Vec<f64> {
        let mut out = vec![0.0; n_nodes];
        self.add_column_into(id, &mut out);
        out
    }

    /// Adds value `id` of every node into `out` (for sums over several profiles).
    pub fn add_column_into(&self, id: u16, out: &mut [f64]) {
        for i in 0..self.nodes.len() {
            let (ids, vals) = self.run(i);
            if let Some(j) = ids.iter().position(|&x| x == id) {
                if let Some(slot) = out.get_mut(self.nodes[i] as usize) {
                    *slot += vals[j];
                }
            }
        }
    }

    /// Dense columns of several value ids over `n_nodes` nodes in one pass over the values;
    /// `columns(ids, n)[k]` equals `column(ids[k], n)`. Ids may repeat.
    pub fn columns(&self, ids: &[u16], n_nodes: usize) -> Vec<Vec<f64>> {
        let mut out = vec![vec![0.0; n_nodes]; ids.len()];
        // Value id -> first column asking for it (the others are copied at the end).
        let width = ids.iter().map(|&i| i as usize + 1).max().unwrap_or(0);
        let mut slot = vec![u32::MAX; width];
        for (k, &id) in ids.iter().enumerate().rev() {
            slot[id as usize] = k as u32;
        }
        // Run that last added to each column: only the first pair of an id in a run counts, as
        // in `add_column_into`.
        let mut last = vec![usize::MAX; ids.len()];
        for (i, &node) in self.nodes.iter().enumerate() {
            let (ids_i, vals) = self.run(i);
            for (&id, &v) in ids_i.iter().zip(vals) {
                let Some(&k) = slot.get(id as usize) else {
                    continue;
                };
                if let (Some(c), Some(l)) = (out.get_mut(k as usize), last.get_mut(k as usize)) {
                    if *l != i {
                        *l = i;
                        if let Some(x) = c.get_mut(node as usize) {
                            *x += v;
                        }
                    }
                }
            }
        }
        for k in 0..ids.len() {
            let first = slot[ids[k] as usize] as usize;
            if first != k {
                out[k] = out[first].clone();
            }
        }
        out
    }

    /// All (node, id, value) triples in node order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u16, f64)> + '_ {
        (0..self.nodes.len()).flat_map(move |i| {
            let (ids, vals) = self.run(i);
            ids.iter()
                .zip(vals)
                .map(move |(&id, &v)| (self.nodes[i], id, v))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triples_sorted_merged_and_queried() {
        let s = SparseValues::from_triples(vec![
            (5, 1, 2.0),
            (2, 3, 1.5),
            (5, 0, 4.0),
            (2, 3, 0.5),
            (7, 2, 0.0),
        ]);
        assert_eq!(s.nodes, vec![2, 5]);
        assert_eq!(s.get(2, 3), 2.0);
        assert_eq!(s.get(5, 0), 4.0);
        assert_eq!(s.get(5, 2), 0.0);
        assert_eq!(s.get(7, 2), 0.0);
        assert_eq!(s.column(1, 6), vec![0.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
        let cols = s.columns(&[1, 3, 9, 1], 6);
        assert_eq!(
            cols,
            vec![s.column(1, 6), s.column(3, 6), vec![0.0; 6], s.column(1, 6)]
        );
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            vec![(2, 3, 2.0), (5, 0, 4.0), (5, 1, 2.0)]
        );
    }
}
