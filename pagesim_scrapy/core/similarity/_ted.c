/*
 * Exact ordered labelled tree edit distance (Zhang & Shasha, 1989) as a CPython extension.
 *
 * Optional accelerator for pagesim_scrapy.core.similarity.ted, which holds a pure-Python
 * fallback computing the same numbers.  Plain C API, no Cython, no numpy.
 *
 * Input: two trees given as flat arrays in document order (preorder): labels[i] is an integer
 * code, parents[i] the preorder index of node i's parent (-1 for the root, index 0).
 *
 * Algorithm: Zhang-Shasha keyroot dynamic programme.  Its cost is
 *     (sum of keyroot subtree sizes of T1) * (same for T2)
 * for the left-to-right decomposition; the mirrored (right-to-left) decomposition gives the same
 * distance and may be cheaper, so both costs are computed and the cheaper one is used (a
 * two-strategy version of RTED's idea).  The DP runs on int32 when all costs are small
 * integers (the common case: unit costs; the add/min dependency chain is then ~3x shorter than
 * with doubles) and on doubles otherwise.  Everything is iterative: no recursion in C, so trees
 * 10,000 or 1,000,000 deep are fine.  The GIL is released during the DP.
 *
 * Memory: the tree-distance matrix (n1 x n2) and the forest-distance matrix ((n1+1) x (n2+1)),
 * 4 or 8 bytes per cell.  Inputs whose n1 * n2 exceeds max_cells are refused with ValueError.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A tree prepared for the DP, in decomposition order ("postorder" of the tree, or of its
 * mirror image). */
typedef struct {
    Py_ssize_t n;
    long long *lab;    /* label of node at decomposition index p */
    int32_t *lml;      /* decomposition index of the leftmost leaf of node p's subtree */
    Py_ssize_t *kr;    /* keyroots in increasing decomposition order */
    Py_ssize_t nkr;
} Prepared;

/* Raw input tree, preorder. */
typedef struct {
    Py_ssize_t n;
    long long *labels;
    Py_ssize_t *parents;
    Py_ssize_t *size;
    Py_ssize_t *depth;
} RawTree;

static void raw_free(RawTree *t) {
    free(t->labels);
    free(t->parents);
    free(t->size);
    free(t->depth);
    memset(t, 0, sizeof(*t));
}

static void prep_free(Prepared *p) {
    free(p->lab);
    free(p->lml);
    free(p->kr);
    memset(p, 0, sizeof(*p));
}

/* Read labels and parents (any sequences of ints) into a RawTree and validate the preorder
 * structure.  Returns 0 on success, -1 with a Python exception set. Needs the GIL. */
static int raw_from_python(PyObject *labels_obj, PyObject *parents_obj, const char *which,
                           RawTree *t) {
    PyObject *labels = NULL, *parents = NULL;
    Py_ssize_t n, i;
    int rc = -1;

    memset(t, 0, sizeof(*t));
    labels = PySequence_Fast(labels_obj, "labels must be a sequence of ints");
    if (labels == NULL) goto done;
    parents = PySequence_Fast(parents_obj, "parents must be a sequence of ints");
    if (parents == NULL) goto done;
    n = PySequence_Fast_GET_SIZE(labels);
    if (PySequence_Fast_GET_SIZE(parents) != n) {
        PyErr_Format(PyExc_ValueError,
                     "%s: labels and parents differ in length (%zd != %zd)", which, n,
                     PySequence_Fast_GET_SIZE(parents));
        goto done;
    }
    t->n = n;
    if (n == 0) {
        rc = 0;
        goto done;
    }
    if (n > (Py_ssize_t)INT32_MAX - 2) {
        PyErr_Format(PyExc_ValueError, "%s: too many nodes (%zd)", which, n);
        goto done;
    }
    t->labels = (long long *)malloc((size_t)n * sizeof(long long));
    t->parents = (Py_ssize_t *)malloc((size_t)n * sizeof(Py_ssize_t));
    t->size = (Py_ssize_t *)malloc((size_t)n * sizeof(Py_ssize_t));
    t->depth = (Py_ssize_t *)malloc((size_t)n * sizeof(Py_ssize_t));
    if (!t->labels || !t->parents || !t->size || !t->depth) {
        PyErr_NoMemory();
        goto done;
    }
    {
        PyObject **litems = PySequence_Fast_ITEMS(labels);
        PyObject **pitems = PySequence_Fast_ITEMS(parents);
        for (i = 0; i < n; i++) {
            long long v = PyLong_AsLongLong(litems[i]);
            Py_ssize_t p;
            if (v == -1 && PyErr_Occurred()) goto done;
            t->labels[i] = v;
            p = PyLong_AsSsize_t(pitems[i]);
            if (p == -1 && PyErr_Occurred()) goto done;
            t->parents[i] = p;
        }
    }
    /* Validate: node 0 is the only root, every other node's parent is an ancestor-candidate on
     * the current root-to-last-node path (that is what document order means).  t->size is
     * used as the stack here; sizes are computed afterwards. */
    if (t->parents[0] != -1) {
        PyErr_Format(PyExc_ValueError, "%s: parents[0] must be -1 (node 0 is the root)", which);
        goto done;
    }
    {
        Py_ssize_t *stack = t->size, top = 0;
        stack[0] = 0;
        t->depth[0] = 0;
        for (i = 1; i < n; i++) {
            Py_ssize_t p = t->parents[i];
            if (p < 0 || p >= i) {
                PyErr_Format(PyExc_ValueError,
                             "%s: parents[%zd] = %zd is not the index of an earlier node "
                             "(nodes must be in document order, one root)",
                             which, i, p);
                goto done;
            }
            while (top >= 0 && stack[top] != p) top--;
            if (top < 0) {
                PyErr_Format(PyExc_ValueError,
                             "%s: node %zd's parent %zd is not on the path to node %zd: "
                             "nodes are not in document order (preorder)",
                             which, i, p, i - 1);
                goto done;
            }
            stack[++top] = i;
            t->depth[i] = t->depth[p] + 1;
        }
    }
    for (i = 0; i < n; i++) t->size[i] = 1;
    for (i = n - 1; i > 0; i--) t->size[t->parents[i]] += t->size[i];
    rc = 0;
done:
    Py_XDECREF(labels);
    Py_XDECREF(parents);
    if (rc != 0) raw_free(t);
    return rc;
}

/* Sum of keyroot subtree sizes for the left (mirror = 0) or right (mirror = 1) decomposition.
 * Left keyroots: the root and every node that is not the first child of its parent; right
 * keyroots: the root and every node that is not the last child. */
static double keyroot_cost(const RawTree *t, int mirror) {
    Py_ssize_t n = t->n, i;
    double s;
    if (n == 0) return 0.0;
    s = (double)t->size[0];
    for (i = 1; i < n; i++) {
        int is_key;
        if (!mirror) {
            is_key = t->parents[i] != i - 1; /* first child directly follows its parent */
        } else {
            Py_ssize_t next = i + t->size[i];
            is_key = next < n && t->parents[next] == t->parents[i]; /* has a next sibling */
        }
        if (is_key) s += (double)t->size[i];
    }
    return s;
}

/* Build the decomposition-order arrays.  Left: p = pre - depth + size - 1 (postorder).
 * Right: p = n - 1 - pre (postorder of the mirror image).  In both, a subtree occupies the
 * contiguous range [p - size + 1, p].  No GIL needed; returns -1 on allocation failure. */
static int prepare(const RawTree *t, int mirror, Prepared *out) {
    Py_ssize_t n = t->n, i, p, k;
    Py_ssize_t *keyfor = NULL;
    memset(out, 0, sizeof(*out));
    out->n = n;
    if (n == 0) return 0;
    out->lab = (long long *)malloc((size_t)n * sizeof(long long));
    out->lml = (int32_t *)malloc((size_t)n * sizeof(int32_t));
    out->kr = (Py_ssize_t *)malloc((size_t)n * sizeof(Py_ssize_t));
    keyfor = (Py_ssize_t *)malloc((size_t)n * sizeof(Py_ssize_t));
    if (!out->lab || !out->lml || !out->kr || !keyfor) {
        free(keyfor);
        prep_free(out);
        return -1;
    }
    for (i = 0; i < n; i++) {
        p = mirror ? (n - 1 - i) : (i - t->depth[i] + t->size[i] - 1);
        out->lab[p] = t->labels[i];
        out->lml[p] = (int32_t)(p - t->size[i] + 1);
    }
    /* keyroot of each leftmost leaf: the node with the largest index having that leaf. */
    for (i = 0; i < n; i++) keyfor[i] = -1;
    for (p = 0; p < n; p++) keyfor[out->lml[p]] = p;
    k = 0;
    for (p = 0; p < n; p++) {
        if (keyfor[out->lml[p]] == p) out->kr[k++] = p;
    }
    out->nkr = k;
    free(keyfor);
    return 0;
}

/* Per keyroot k2 of b, the fd column of the forest left of each column's leftmost leaf. */
static int column_tables(const Prepared *b, int32_t **rel_out, Py_ssize_t **ofs_out) {
    Py_ssize_t kb, y, total = 0;
    int32_t *rel;
    Py_ssize_t *ofs = (Py_ssize_t *)malloc(((size_t)b->nkr + 1) * sizeof(Py_ssize_t));
    if (!ofs) return -1;
    for (kb = 0; kb < b->nkr; kb++) {
        Py_ssize_t k2 = b->kr[kb];
        ofs[kb] = total;
        total += k2 - b->lml[k2] + 2;
    }
    ofs[b->nkr] = total;
    rel = (int32_t *)malloc((size_t)total * sizeof(int32_t));
    if (!rel) {
        free(ofs);
        return -1;
    }
    for (kb = 0; kb < b->nkr; kb++) {
        Py_ssize_t k2 = b->kr[kb], lk2 = b->lml[k2], w = k2 - lk2 + 2;
        int32_t *r = rel + ofs[kb];
        r[0] = 0;
        for (y = 1; y < w; y++) r[y] = (int32_t)(b->lml[lk2 + y - 1] - lk2);
    }
    *rel_out = rel;
    *ofs_out = ofs;
    return 0;
}

/* The Zhang-Shasha DP, generated for T = int16_t, int32_t and double.
 *   td:   n1 x n2 tree distances (row-major, stride n2), written for pairs of nodes on the
 *         leftmost paths of the current keyroots, read otherwise;
 *   fd:   forest distances for one keyroot pair, rows 1..|T1[k1]| of a
 *         (|T1[k1]|+1) x (|T2[k2]|+1) matrix with stride w (row 0, pure insertions, is `ramp`);
 *   ramp: n2 + 1 cells, ramp[y] = y * ins, followed by n1 + 1 cells delramp[x] = x * del
 *         (both by repeated addition, as the general recurrence computes them);
 *   rel:  for every keyroot k2 of b (at offset relofs[kb]), rel[y] = fd column of the forest
 *         left of the leftmost leaf of column y's node (0 when it is on k2's leftmost path).
 * Rows are nodes of tree a, columns nodes of tree b; column y (1..w-1) of the pair (k1, k2)
 * is node l(k2) + y - 1 of b.  The row kernels are separate functions so that the compiler
 * keeps their few pointers in registers. */
#define DEFINE_ZS(SUF, T)                                                                      \
    /* A row whose node is on the leftmost path of k1: the forest left of it is empty (row 0 \
     * = ramp), and where the column's node is on the leftmost path of k2 too, the cell is a  \
     * tree distance: written to td. */                                                        \
    static void row_lmp_##SUF(Py_ssize_t w, const int32_t *restrict rel,                       \
                              const long long *restrict lb, long long la,                      \
                              const T *restrict up, const T *restrict ramp, T *restrict row,   \
                              T *restrict tdrow, T ins, T del, T ren) {                        \
        Py_ssize_t y;                                                                          \
        T cur = row[0];                                                                        \
        for (y = 1; y < w; y++) {                                                              \
            T v = up[y] + del, t2 = cur + ins;                                                 \
            const int32_t r = rel[y];                                                          \
            if (t2 < v) v = t2;                                                                \
            if (r == 0) {                                                                      \
                t2 = up[y - 1] + (lb[y] == la ? (T)0 : ren);                                   \
                if (t2 < v) v = t2;                                                            \
                tdrow[y] = v;                                                                  \
            } else {                                                                           \
                t2 = ramp[r] + tdrow[y];                                                       \
                if (t2 < v) v = t2;                                                            \
            }                                                                                  \
            row[y] = v;                                                                        \
            cur = v;                                                                           \
        }                                                                                      \
    }                                                                                          \
    /* A row off the leftmost path: frow is the forest row left of the row node's leftmost    \
     * leaf (it may be `up`). */                                                               \
    static void row_one_##SUF(Py_ssize_t w, const int32_t *restrict rel, const T *up,          \
                              const T *frow, const T *restrict tdrow, T *restrict row, T ins,  \
                              T del) {                                                         \
        Py_ssize_t y;                                                                          \
        T cur = row[0];                                                                        \
        for (y = 1; y < w; y++) {                                                              \
            T v = up[y] + del, t2 = frow[rel[y]] + tdrow[y];                                   \
            if (t2 < v) v = t2;                                                                \
            t2 = cur + ins;                                                                    \
            if (t2 < v) v = t2;                                                                \
            row[y] = v;                                                                        \
            cur = v;                                                                           \
        }                                                                                      \
    }                                                                                          \
    /* Two consecutive rows off the leftmost path at once: two independent add/min chains.   \
     * f1 may be row0, read at columns < y only (already written). */                         \
    static void row_two_##SUF(Py_ssize_t w, const int32_t *restrict rel, const T *up,          \
                              const T *f0, const T *f1, const T *restrict td0,                 \
                              const T *restrict td1, T *row0, T *row1, T ins, T del) {         \
        Py_ssize_t y;                                                                          \
        T c0 = row0[0], c1 = row1[0];                                                          \
        for (y = 1; y < w; y++) {                                                              \
            const int32_t r = rel[y];                                                          \
            T v = up[y] + del, t2 = f0[r] + td0[y];                                            \
            if (t2 < v) v = t2;                                                                \
            t2 = c0 + ins;                                                                     \
            if (t2 < v) v = t2;                                                                \
            row0[y] = v;                                                                       \
            c0 = v;                                                                            \
            v = v + del;                                                                       \
            t2 = f1[r] + td1[y];                                                               \
            if (t2 < v) v = t2;                                                                \
            t2 = c1 + ins;                                                                     \
            if (t2 < v) v = t2;                                                                \
            row1[y] = v;                                                                       \
            c1 = v;                                                                            \
        }                                                                                      \
    }                                                                                          \
    static T zs_##SUF(const Prepared *a, const Prepared *b, T ins, T del, T ren, T *td, T *fd, \
                      T *ramp, const int32_t *relall, const Py_ssize_t *relofs) {              \
        const Py_ssize_t n2 = b->n;                                                            \
        const long long *lab1 = a->lab, *lab2 = b->lab;                                        \
        const int32_t *L1 = a->lml, *L2 = b->lml;                                              \
        Py_ssize_t ka, kb, x, y;                                                               \
        T *delramp = ramp + n2 + 1;                                                            \
        ramp[0] = 0;                                                                           \
        for (y = 1; y <= n2; y++) ramp[y] = ramp[y - 1] + ins;                                 \
        delramp[0] = 0;                                                                        \
        for (x = 1; x <= a->n; x++) delramp[x] = delramp[x - 1] + del;                         \
        for (ka = 0; ka < a->nkr; ka++) {                                                      \
            const Py_ssize_t k1 = a->kr[ka], lk1 = L1[k1];                                     \
            const Py_ssize_t m = k1 - lk1 + 2;                                                 \
            for (kb = 0; kb < b->nkr; kb++) {                                                  \
                const Py_ssize_t k2 = b->kr[kb], lk2 = L2[k2];                                 \
                const Py_ssize_t w = k2 - lk2 + 2;                                             \
                const long long *lb = lab2 + lk2 - 1;                                          \
                const int32_t *rel = relall + relofs[kb];                                      \
                T *base = fd - w; /* base + x * w is row x, for x >= 1 */                      \
                if (w == 2) {                                                                  \
                    /* k2 is a leaf: one column, whose node is on its own leftmost path.      \
                     * Column 0 of row x is delramp[x]; no other fd cell is ever read. */     \
                    const Py_ssize_t j = k2;                                                   \
                    const long long lj = lab2[j];                                              \
                    T prev = ins;                                                              \
                    for (x = 1; x < m; x++) {                                                  \
                        const Py_ssize_t i = lk1 + x - 1, li = L1[i];                          \
                        T v = prev + del, t2 = delramp[x] + ins, d;                            \
                        if (t2 < v) v = t2;                                                    \
                        if (li == lk1) {                                                       \
                            d = delramp[x - 1] + (lab1[i] == lj ? (T)0 : ren);                 \
                            if (d < v) v = d;                                                  \
                            td[i * n2 + j] = v;                                                \
                        } else {                                                               \
                            d = delramp[li - lk1] + td[i * n2 + j];                            \
                            if (d < v) v = d;                                                  \
                        }                                                                      \
                        prev = v;                                                              \
                    }                                                                          \
                    continue;                                                                  \
                }                                                                              \
                x = 1;                                                                         \
                while (x < m) {                                                                \
                    const Py_ssize_t i = lk1 + x - 1, li = L1[i];                              \
                    T *row = base + x * w;                                                     \
                    const T *up = x == 1 ? ramp : row - w;                                     \
                    T *tdrow = td + i * n2 + (lk2 - 1);                                        \
                    row[0] = up[0] + del;                                                      \
                    if (li == lk1) {                                                           \
                        row_lmp_##SUF(w, rel, lb, lab1[i], up, ramp, row, tdrow, ins, del,     \
                                      ren);                                                    \
                        x++;                                                                   \
                    } else if (x + 1 < m && L1[i + 1] != lk1) {                                \
                        row[w] = row[0] + del;                                                 \
                        row_two_##SUF(w, rel, up, base + (li - lk1) * w,                       \
                                      base + (L1[i + 1] - lk1) * w, tdrow, tdrow + n2, row,    \
                                      row + w, ins, del);                                      \
                        x += 2;                                                                \
                    } else {                                                                   \
                        row_one_##SUF(w, rel, up, base + (li - lk1) * w, tdrow, row, ins,      \
                                      del);                                                    \
                        x++;                                                                   \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        return td[(a->n - 1) * n2 + (n2 - 1)];                                                 \
    }

DEFINE_ZS(int16, int16_t)
DEFINE_ZS(int32, int32_t)
DEFINE_ZS(double, double)

#define DEFAULT_MAX_CELLS 400000000LL

static int cost_arg(PyObject *obj, const char *name, double *out) {
    double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) return -1;
    if (!isfinite(v) || v < 0.0) {
        PyErr_Format(PyExc_ValueError, "%s must be a finite number >= 0", name);
        return -1;
    }
    *out = v;
    return 0;
}

static int is_small_int(double v) { return v == floor(v) && v <= 1048576.0; }

PyDoc_STRVAR(tree_edit_distance_doc,
             "tree_edit_distance(labels1, parents1, labels2, parents2, insert_cost=1.0, "
             "delete_cost=1.0, rename_cost=1.0, max_cells=400000000)\n--\n\n"
             "Exact ordered labelled tree edit distance (Zhang-Shasha) between two trees given "
             "in document order as label codes and parent indices (-1 for the root).\n"
             "Raises ValueError for malformed trees, negative or non-finite costs, or when "
             "len(labels1) * len(labels2) > max_cells.");

static PyObject *py_tree_edit_distance(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"labels1",     "parents1",    "labels2",     "parents2",
                             "insert_cost", "delete_cost", "rename_cost", "max_cells", NULL};
    PyObject *l1, *p1, *l2, *p2, *ins_o = NULL, *del_o = NULL, *ren_o = NULL;
    long long max_cells = DEFAULT_MAX_CELLS;
    double ins = 1.0, del = 1.0, ren = 1.0, result = 0.0;
    RawTree r1, r2;
    Prepared a, b;
    int mirror, ok = 1, use_int, use_short;
    void *td = NULL, *fd = NULL;
    int32_t *rel = NULL;
    Py_ssize_t *relofs = NULL;
    void *ramp = NULL;
    size_t cell, cells_td, cells_fd;

    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO|OOOL:tree_edit_distance", kwlist, &l1,
                                     &p1, &l2, &p2, &ins_o, &del_o, &ren_o, &max_cells))
        return NULL;
    if (ins_o && cost_arg(ins_o, "insert_cost", &ins) < 0) return NULL;
    if (del_o && cost_arg(del_o, "delete_cost", &del) < 0) return NULL;
    if (ren_o && cost_arg(ren_o, "rename_cost", &ren) < 0) return NULL;
    if (raw_from_python(l1, p1, "tree 1", &r1) < 0) return NULL;
    if (raw_from_python(l2, p2, "tree 2", &r2) < 0) {
        raw_free(&r1);
        return NULL;
    }
    /* Trivial cases: an empty tree. */
    if (r1.n == 0 || r2.n == 0) {
        result = (double)r1.n * del + (double)r2.n * ins;
        raw_free(&r1);
        raw_free(&r2);
        return PyFloat_FromDouble(result);
    }
    if (max_cells < 0 || (double)r1.n * (double)r2.n > (double)max_cells) {
        PyErr_Format(PyExc_ValueError,
                     "trees too large for exact tree edit distance: %zd x %zd nodes = %.0f "
                     "cells > max_cells = %lld (prune them: max_depth, collapse_runs)",
                     r1.n, r2.n, (double)r1.n * (double)r2.n, max_cells);
        raw_free(&r1);
        raw_free(&r2);
        return NULL;
    }
    use_int = is_small_int(ins) && is_small_int(del) && is_small_int(ren) &&
              (fmax(fmax(ins, del), ren) * (double)(r1.n + r2.n + 2) < 1073741824.0);
    use_short = use_int && fmax(fmax(ins, del), ren) * (double)(r1.n + r2.n + 2) < 32000.0;
    cell = use_short ? sizeof(int16_t) : use_int ? sizeof(int32_t) : sizeof(double);
    cells_td = (size_t)r1.n * (size_t)r2.n;
    cells_fd = (size_t)(r1.n + 1) * (size_t)(r2.n + 1);
    if (cells_fd > SIZE_MAX / cell) {
        raw_free(&r1);
        raw_free(&r2);
        return PyErr_NoMemory();
    }

    Py_BEGIN_ALLOW_THREADS
    mirror = keyroot_cost(&r2, 1) * keyroot_cost(&r1, 1) <
             keyroot_cost(&r1, 0) * keyroot_cost(&r2, 0);
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    if (prepare(&r1, mirror, &a) < 0 || prepare(&r2, mirror, &b) < 0) ok = 0;
    if (ok) {
        td = malloc(cells_td * cell);
        fd = malloc(cells_fd * cell);
        ramp = malloc(((size_t)r1.n + (size_t)r2.n + 2) * cell);
        if (!td || !fd || !ramp || column_tables(&b, &rel, &relofs) < 0) ok = 0;
    }
    if (ok) {
        if (use_short)
            result = (double)zs_int16(&a, &b, (int16_t)ins, (int16_t)del, (int16_t)ren,
                                      (int16_t *)td, (int16_t *)fd, (int16_t *)ramp, rel,
                                      relofs);
        else if (use_int)
            result = (double)zs_int32(&a, &b, (int32_t)ins, (int32_t)del, (int32_t)ren,
                                      (int32_t *)td, (int32_t *)fd, (int32_t *)ramp, rel,
                                      relofs);
        else
            result = zs_double(&a, &b, ins, del, ren, (double *)td, (double *)fd, (double *)ramp, rel, relofs);
    }
    free(td);
    free(fd);
    free(rel);
    free(relofs);
    free(ramp);
    prep_free(&a);
    prep_free(&b);
    raw_free(&r1);
    raw_free(&r2);
    Py_END_ALLOW_THREADS

    if (!ok) return PyErr_NoMemory();
    return PyFloat_FromDouble(result);
}

static PyMethodDef ted_methods[] = {
    {"tree_edit_distance", (PyCFunction)(void (*)(void))py_tree_edit_distance,
     METH_VARARGS | METH_KEYWORDS, tree_edit_distance_doc},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef ted_module = {
    PyModuleDef_HEAD_INIT,
    "_ted",
    "C implementation of the exact tree edit distance (Zhang-Shasha) for pagesim_scrapy.",
    -1,
    ted_methods,
    NULL,
    NULL,
    NULL,
    NULL};

PyMODINIT_FUNC PyInit__ted(void) { return PyModule_Create(&ted_module); }
