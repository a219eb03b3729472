//! Graph algorithms over dense node indices `0..n`, shared by the analyses: dominators
//! (Cooper, Harvey and Kennedy's iterative algorithm), interval numbering of a tree for
//! constant-time ancestor queries, and Tarjan's strongly connected components.
//!
//! Graphs are [`Rows`]: every node's successors in one array (compressed rows). A vector
//! per node cost an allocation and a free per block, several times per pass, and scattered
//! the graph over the heap (docs/lowering-speed.md, round 4).

/// A directed graph over nodes `0..n` as compressed rows: node `v`'s successors are
/// `items[first[v]..first[v + 1]]`, in the order they were added. Node numbers are `u32`
/// (half the bytes of `usize`; a function has far fewer blocks).
#[derive(Clone, Debug, Default)]
pub(crate) struct Rows {
    first: Vec<u32>,
    items: Vec<u32>,
}

impl Rows {
    /// An empty graph with room for `nodes` nodes and `edges` edges; nodes are added in
    /// order with [`Rows::push_row`].
    pub(crate) fn with_capacity(nodes: usize, edges: usize) -> Rows {
        let mut first = Vec::with_capacity(nodes + 1);
        first.push(0);
        Rows {
            first,
            items: Vec::with_capacity(edges),
        }
    }

    /// Adds the next node, with successors `succs`.
    pub(crate) fn push_row(&mut self, succs: impl IntoIterator<Item = usize>) {
        self.items.extend(succs.into_iter().map(|s| s as u32));
        self.first.push(self.items.len() as u32);
    }

    /// The number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.first.len() - 1
    }

    /// The successors of `v`, in the order added.
    pub(crate) fn row(&self, v: usize) -> &[u32] {
        &self.items[self.first[v] as usize..self.first[v + 1] as usize]
    }

    /// The reversed graph: node `s`'s row lists every `v` with an edge `v -> s`, in
    /// increasing `v` (the order a vector per node filled by a scan of `v` gives), and
    /// an edge twice if it is there twice. With `keep`, only the edges out of nodes it
    /// accepts.
    pub(crate) fn reversed(&self, keep: impl Fn(usize) -> bool) -> Rows {
        let n = self.len();
        let mut first = vec![0u32; n + 1];
        for v in (0..n).filter(|&v| keep(v)) {
            for &s in self.row(v) {
                first[s as usize + 1] += 1;
            }
        }
        for v in 0..n {
            first[v + 1] += first[v];
        }
        let mut fill = first.clone();
        let mut items = vec![0u32; first[n] as usize];
        for v in (0..n).filter(|&v| keep(v)) {
            for &s in self.row(v) {
                items[fill[s as usize] as usize] = v as u32;
                fill[s as usize] += 1;
            }
        }
        Rows { first, items }
    }
}

/// The immediate dominator of every node reachable from `root` in the graph `succs`
/// (`None` for the root and for nodes it does not reach). Successors are visited in the
/// order given, so the result is deterministic.
pub(crate) fn immediate_dominators(succs: &Rows, root: usize) -> Vec<Option<usize>> {
    let n = succs.len();
    let rpo = reverse_post_order(succs, root);
    let mut order = vec![usize::MAX; n];
    for (i, &v) in rpo.iter().enumerate() {
        order[v] = i;
    }
    // Predecessors of the reached nodes.
    let preds = succs.reversed(|v| order[v] != usize::MAX);
    const UNDEF: usize = usize::MAX;
    // idom by reverse post-order position.
    let mut idom = vec![UNDEF; rpo.len()];
    if !rpo.is_empty() {
        idom[0] = 0;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for i in 1..rpo.len() {
            let mut new_idom = UNDEF;
            for &p in preds.row(rpo[i]) {
                let pi = order[p as usize];
                if idom[pi] == UNDEF {
                    continue;
                }
                new_idom = if new_idom == UNDEF {
                    pi
                } else {
                    let (mut a, mut b) = (pi, new_idom);
                    while a != b {
                        while a > b {
                            a = idom[a];
                        }
                        while b > a {
                            b = idom[b];
                        }
                    }
                    a
                };
            }
            if new_idom != idom[i] {
                idom[i] = new_idom;
                changed = true;
            }
        }
    }
    let mut out = vec![None; n];
    for i in 1..rpo.len() {
        out[rpo[i]] = Some(rpo[idom[i]]);
    }
    out
}

/// The nodes reachable from `root`, in reverse post-order of a depth-first search that
/// visits successors in the order given.
pub(crate) fn reverse_post_order(succs: &Rows, root: usize) -> Vec<usize> {
    let mut visited = vec![false; succs.len()];
    // Both as long as the graph at most (a chain makes the stack that deep): reserved, so
    // growing them copies nothing.
    let mut post = Vec::with_capacity(succs.len());
    let mut stack = Vec::with_capacity(succs.len() + 1);
    stack.push((root, 0usize));
    visited[root] = true;
    while let Some((v, i)) = stack.pop() {
        if let Some(&s) = succs.row(v).get(i) {
            stack.push((v, i + 1));
            let s = s as usize;
            if !visited[s] {
                visited[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(v);
        }
    }
    post.reverse();
    post
}

/// Pre- and post-order numbers of a depth-first walk of a forest given by parent links:
/// `a` is an ancestor of `b` (or `b` itself) iff `a`'s interval contains `b`'s.
#[derive(Clone, Debug, Default)]
pub(crate) struct Intervals {
    pre: Vec<u32>,
    post: Vec<u32>,
    /// Children of every node, in increasing node order, node after node: node `v`'s are
    /// `kids[first_kid[v]..first_kid[v + 1]]` (one array, not a vector per node: the trees
    /// are built once per pass over functions of up to 100k instructions).
    kids: Vec<u32>,
    first_kid: Vec<u32>,
}

impl Intervals {
    /// Numbers the forest whose parent links are `parent` (roots have `None`).
    pub(crate) fn new(parent: &[Option<usize>]) -> Self {
        let n = parent.len();
        let mut first_kid = vec![0u32; n + 1];
        for p in parent.iter().flatten() {
            first_kid[p + 1] += 1;
        }
        for v in 0..n {
            first_kid[v + 1] += first_kid[v];
        }
        let mut fill = first_kid.clone();
        let mut kids = vec![0u32; first_kid[n] as usize];
        for (v, p) in parent.iter().enumerate() {
            if let Some(p) = *p {
                kids[fill[p] as usize] = v as u32;
                fill[p] += 1;
            }
        }
        let (mut pre, mut post) = (vec![0u32; n], vec![0u32; n]);
        let (mut pre_n, mut post_n) = (0u32, 0u32);
        // As deep as the tree at most: reserved, so growing it copies nothing.
        let mut stack = Vec::with_capacity(n);
        for root in (0..n).filter(|&v| parent[v].is_none()) {
            pre[root] = pre_n;
            pre_n += 1;
            stack.push((root, first_kid[root] as usize));
            while let Some((v, k)) = stack.pop() {
                if k < first_kid[v + 1] as usize {
                    stack.push((v, k + 1));
                    let c = kids[k] as usize;
                    pre[c] = pre_n;
                    pre_n += 1;
                    stack.push((c, first_kid[c] as usize));
                } else {
                    post[v] = post_n;
                    post_n += 1;
                }
            }
        }
        Intervals {
            pre,
            post,
            kids,
            first_kid,
        }
    }

    /// The children of node `v`, in increasing node order.
    pub(crate) fn children(&self, v: usize) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.kids[self.first_kid[v] as usize..self.first_kid[v + 1] as usize]
            .iter()
            .map(|&c| c as usize)
    }

    /// Whether `a` is `b` or an ancestor of it.
    pub(crate) fn is_ancestor(&self, a: usize, b: usize) -> bool {
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }
}

/// The strongly connected components of the subgraph induced by the nodes with
/// `member[v]` set (edges leaving it ignored), each as a list of nodes. Components come
/// out in reverse topological order (a component before those that reach it); the search
/// starts from members in the order of `starts`, so the result is deterministic.
pub(crate) fn strongly_connected(
    succs: &Rows,
    member: &[bool],
    starts: &[usize],
) -> Vec<Vec<usize>> {
    const NONE: usize = usize::MAX;
    let n = succs.len();
    let mut index = vec![NONE; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    // Both stacks hold at most every node (a chain makes the search that deep): reserved,
    // so growing them copies nothing.
    let mut stack = Vec::with_capacity(n);
    let mut work = Vec::with_capacity(n);
    let mut next = 0usize;
    let mut out = Vec::new();
    for &root in starts {
        if !member[root] || index[root] != NONE {
            continue;
        }
        work.push((root, 0usize));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(&s) = succs.row(v).get(*i) {
                let s = s as usize;
                *i += 1;
                if !member[s] {
                    continue;
                }
                if index[s] == NONE {
                    index[s] = next;
                    low[s] = next;
                    next += 1;
                    stack.push(s);
                    on_stack[s] = true;
                    work.push((s, 0));
                } else if on_stack[s] {
                    low[v] = low[v].min(index[s]);
                }
            } else {
                work.pop();
                if let Some(&(p, _)) = work.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    loop {
                        let w = stack.pop().expect("Tarjan stack holds the component");
                        on_stack[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    out.push(comp);
                }
            }
        }
    }
    out
}
