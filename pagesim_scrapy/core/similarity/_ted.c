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
 * two-strategy version of RTED's idea).  The DP runs on int16 when all costs are small
 * integers and every distance fits (the common case: unit costs, trees of up to ~16,000 nodes
 * together), on int32 for larger integer totals, and on doubles otherwise.  Everything is
 * iterative: no recursion in C, so trees 10,000 or 1,000,000 deep are fine.  The GIL is
 * released during the DP.
 *
 * The int16 DP has two implementations giving identical results (integer arithmetic, same
 * recurrence): a scalar one, and, on x86-64 CPUs with AVX2 (checked at import; compiled with a
 * function target attribute, so no -march flag is needed and the module still runs on older
 * CPUs), a vectorised one that computes 16 cells of a row at once (see "AVX2" below).  The
 * int32 and double DPs are scalar.  Building with -DTED_NO_SIMD leaves the vector code out.
 *
 * Memory: scalar: the tree-distance matrix (n1 x n2) and the forest-distance matrix
 * ((n1+1) x (n2+1)), 2, 4 or 8 bytes per cell; AVX2: the tree-distance matrix twice (both
 * layouts), 2 bytes per cell, plus a few rows.  Inputs whose n1 * n2 exceeds max_cells are
 * refused with ValueError.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The AVX2 kernel needs x86-64 and a GCC-compatible compiler with target attributes and
 * __builtin_cpu_supports (GCC >= 5, clang >= 4). */
#if !defined(TED_NO_SIMD) && defined(__x86_64__) &&                                             \
    ((defined(__clang__) && __clang_major__ >= 4) ||                                           \
     (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 5))
#include <immintrin.h>
#define TED_AVX2 1
#else
#define TED_AVX2 0
#endif

/* A tree prepared for the DP, in decomposition order ("postorder" of the tree, or of its
 * mirror image). */
typedef struct {
    Py_ssize_t n;
    long long *lab;    /* label of node at decomposition index p */
    int32_t *lml;      /* decomposition index of the leftmost leaf of node p's subtree */
    Py_ssize_t *kr;    /* keyroots in increasing decomposition order */
    Py_ssize_t nkr;
    int32_t *kdepth;   /* keyroots among the node and its ancestors */
    int32_t *ptop;     /* the keyroot ending the leftmost path through the node */
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
    free(p->kdepth);
    free(p->ptop);
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
    int32_t *kdpre = NULL;
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
    /* keyroot depths, computed in preorder (parents first) */
    out->kdepth = (int32_t *)malloc((size_t)n * sizeof(int32_t));
    out->ptop = (int32_t *)malloc((size_t)n * sizeof(int32_t));
    kdpre = (int32_t *)malloc((size_t)n * sizeof(int32_t));
    if (!out->kdepth || !out->ptop || !kdpre) {
        free(kdpre);
        free(keyfor);
        prep_free(out);
        return -1;
    }
    for (i = 0; i < n; i++) {
        p = mirror ? (n - 1 - i) : (i - t->depth[i] + t->size[i] - 1);
        kdpre[i] = (i == 0 ? 0 : kdpre[t->parents[i]]) + (keyfor[out->lml[p]] == p ? 1 : 0);
        out->kdepth[p] = kdpre[i];
        out->ptop[p] = (int32_t)keyfor[out->lml[p]];
    }
    free(kdpre);
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

#if TED_AVX2
/* ---- The int16 DP with AVX2 ------------------------------------------------------------------
 *
 * Rows, 16 cells per vector.  Along a row of a forest-distance matrix,
 *     row[y] = min(A[y], row[y-1] + c),
 * where A[y] (the deletion and tree-match candidates) depends only on earlier rows and c is the
 * cost of one step along the row.  With B[y] = A[y] - y * c this is
 *     row[y] = y * c + min(row[0], B[1], ..., B[y]):
 * a prefix minimum, done in-register in log2(16) shift/min steps.  Integer arithmetic, so the
 * result is exactly the sequential recurrence's.  Real values stay below 32,000 (the int16
 * route is taken only then), and so do |B| and rel * c; INF = 32767 stands for "not computed"
 * and survives additions because they saturate.
 *
 * Orientation.  A keyroot pair's forest matrix is computed with rows = nodes of tree a and
 * columns = nodes of tree b, or transposed (rows of b, columns of a, insertion and deletion
 * swapped), whichever makes the rows longer: most keyroot subtrees are small, and a row of 3
 * cells in a 16-lane vector wastes most of it.  The tree distances are kept in both layouts
 * (a x b and b x a), written to both when computed, read from the one matching the orientation.
 *
 * Memory.  Of the forest matrix only the previous row is read, plus, for rows off the leftmost
 * path, the forest row f left of the row node's leftmost leaf li, read through the column table
 * (g[y] = f[rel[y]]).  That gathered row is the same for all the nodes whose leftmost leaf is li
 * (a path up from li to a keyroot; li comes first in decomposition order, and at li, f is the
 * row just above), so it is gathered once, at li, and kept until the path is done, in a slot
 * given by the path's keyroot depth: paths alive at the same time are nested, so their keyroot
 * depths differ.  The working set is two rows, a few gathered rows and the td rows read.
 *
 * Band (exact).  Number the nodes of each tree in decomposition order, and give a forest cell
 * the numbers X and Y of the last nodes of its two prefixes (the prefix of a keyroot pair's
 * forest starts after every node left of the keyroot's subtree, so a cell stands for "all nodes
 * up to X" against "all nodes up to Y").  Take an optimal edit script: in every cell its
 * derivation passes through, the two prefixes hold the same matched nodes (a mapping keeps
 * left-of and ancestor relations), so X - Y is the difference of the unmatched nodes in them,
 * and |X - Y| <= max(deletions, insertions) <= distance / min(insert, delete cost).  The DP run
 * with every cell of |X - Y| > k set to INF computes, everywhere, costs of real scripts or INF
 * (never less than the true distance), and finds the optimal script when all its cells are in
 * the band.  So if its answer R satisfies R <= k * min(insert, delete cost), then the optimal
 * script has at most k deletions and k insertions, lies in the band, and R is the exact
 * distance; otherwise the DP is run again with k = R / min cost (R is an upper bound: that run
 * is exact), or with no band at all (R = INF).  Similar pages (distance much smaller than the
 * trees) need only the cells near the diagonal: about (2k + 1) / n of the work.  The idea is
 * Ukkonen's banded string edit distance; the bound on matched nodes' postorder numbers is the
 * one Touzet's k-bounded tree edit distance (2005) builds on.  Here the first k is a guess from
 * the tree sizes, and the DP's own answer fixes the second, so there are at most two runs.
 *
 * Vector rows read up to 15 cells past their end and write garbage there; every buffer is
 * padded for it, and nothing reads those cells as data. */

#define TED_TARGET __attribute__((target("avx2")))
#define TED_INF INT16_MAX

/* Everything the pair kernel needs about one tree, in its decomposition order. */
typedef struct {
    Py_ssize_t n;
    const int32_t *lml;
    const int32_t *kdepth;
    const int32_t *ptop;  /* the keyroot ending the leftmost path through the node */
    const int16_t *lid;   /* dense label ids */
    const int16_t *ramp;  /* ramp[k] = k * (cost of one node of this tree as a gap) */
    const int16_t *rel16; /* per keyroot (at relofs): rel[y], y = 0 .. |k|, then 16 ones */
    const int16_t *path;  /* per keyroot (at pathofs): the columns y with rel[y] == 0 */
    const Py_ssize_t *pathoff; /* ... and their cell offsets (lml(k) + y - 1) * other->n */
    const int16_t *icol, *irel; /* per keyroot (at icolofs): columns y with rel[y] != y - 1 */
    const Py_ssize_t *relofs, *pathofs, *icolofs;
} Side;

/* Prefix minimum over the 16 lanes (lane 0 first); inf fills the lanes shifted in. */
static inline TED_TARGET __m256i pm_scan16(__m256i x, __m256i inf, __m256i bc7) {
    __m256i t;
    x = _mm256_min_epi16(x, _mm256_alignr_epi8(x, inf, 14)); /* lane i sees lane i-1 */
    x = _mm256_min_epi16(x, _mm256_alignr_epi8(x, inf, 12)); /* ... and i-2, i-3 */
    x = _mm256_min_epi16(x, _mm256_alignr_epi8(x, inf, 8));  /* ... up to i-7, per half */
    t = _mm256_shuffle_epi8(x, bc7);                          /* each half: its lane 7 */
    t = _mm256_permute2x128_si256(t, inf, 0x02);              /* upper half gets lower's */
    return _mm256_min_epi16(x, t);
}

/* Lane 15 in all lanes. */
static inline TED_TARGET __m256i pm_last16(__m256i x, __m256i bc7) {
    return _mm256_shuffle_epi8(_mm256_permute2x128_si256(x, x, 0x11), bc7);
}

static inline Py_ssize_t ted_max(Py_ssize_t a, Py_ssize_t b) { return a > b ? a : b; }
static inline Py_ssize_t ted_min(Py_ssize_t a, Py_ssize_t b) { return a < b ? a : b; }

/* The first index k in [0, n) with a[k] >= v (a increasing), n if none. */
static inline Py_ssize_t lower_bound16(const int16_t *a, Py_ssize_t n, Py_ssize_t v) {
    Py_ssize_t k = 0;
    while (k < n) {
        const Py_ssize_t mid = k + (n - k) / 2;
        if (a[mid] < v)
            k = mid + 1;
        else
            n = mid;
    }
    return k;
}

/* g[icol[k]] = f[irel[k]] for k in [k0, k1); with check: INF where irel[k] is neither 0 nor in
 * [lo, lo + span]. */
static inline void gather_icol(int16_t *restrict g, const int16_t *restrict f,
                               const int16_t *restrict icol, const int16_t *restrict irel,
                               Py_ssize_t k0, Py_ssize_t k1, int check, Py_ssize_t lo,
                               size_t span) {
    Py_ssize_t k;
    if (!check) {
        for (k = k0; k < k1; k++) g[icol[k]] = f[irel[k]];
        return;
    }
    for (k = k0; k < k1; k++) {
        const Py_ssize_t r = irel[k];
        const int16_t v = f[r];
        g[icol[k]] = (r == 0 || (size_t)(r - lo) <= span) ? v : TED_INF;
    }
}

/* dst[y] = src[y] for y in [lo, hi], vector copy (writes up to 15 cells more). */
static inline TED_TARGET void copy16(int16_t *dst, const int16_t *src, Py_ssize_t lo,
                                     Py_ssize_t hi) {
    Py_ssize_t y;
    for (y = lo; y <= hi; y += 16)
        _mm256_storeu_si256((__m256i *)(dst + y), _mm256_loadu_si256((const __m256i *)(src + y)));
}

/* One keyroot pair whose cells are all in the band (see pair_band, below, for the arguments):
 * whole rows, no band checks. */
static TED_TARGET void pair_full(const Side *R, const Side *C, Py_ssize_t kr, Py_ssize_t kc,
                                 Py_ssize_t ckey, int16_t *tdrc, int16_t *tdcr, int16_t ren,
                                 int scatter, int16_t *rows, Py_ssize_t stride, int16_t *gmat) {
    const Py_ssize_t lkr = R->lml[kr], lkc = C->lml[kc];
    const Py_ssize_t m = kr - lkr + 2, w = kc - lkc + 2, nc = C->n;
    const int32_t kd0 = R->kdepth[kr] + 1;
    const int16_t *lb = C->lid + lkc, *yo = C->ramp; /* lb[y - 1]: label of column y */
    const int16_t *rel16 = C->rel16 + C->relofs[ckey];
    const int16_t *path = C->path + C->pathofs[ckey];
    const Py_ssize_t *pathoff = C->pathoff + C->pathofs[ckey];
    const Py_ssize_t npath = C->pathofs[ckey + 1] - C->pathofs[ckey];
    const int16_t *icol = C->icol + C->icolofs[ckey], *irel = C->irel + C->icolofs[ckey];
    const Py_ssize_t ni = C->icolofs[ckey + 1] - C->icolofs[ckey];
    const __m256i inf = _mm256_set1_epi16(TED_INF);
    const __m256i bc7 = _mm256_setr_epi8(14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15,
                                         14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15,
                                         14, 15, 14, 15);
    const __m256i cost_r = _mm256_set1_epi16(R->ramp[1]), cost_c = _mm256_set1_epi16(yo[1]);
    const __m256i renv = _mm256_set1_epi16(ren), zero = _mm256_setzero_si256();
    const int16_t *up = yo; /* row 0: gaps only */
    Py_ssize_t x, y, p;
    for (x = 1; x < m; x++) {
        const Py_ssize_t i = lkr + x - 1, li = R->lml[i];
        int16_t *row = rows + (x & 1) * stride;
        int16_t *tdrow = tdrc + i * nc + lkc; /* tdrow[y - 1]: column y */
        __m256i carry;
        row[0] = R->ramp[x];
        carry = _mm256_set1_epi16(row[0]);
        if (li == lkr) {
            /* Row on the leftmost path of kr: the forest left of it is empty, so the
             * tree-match candidate is rel[y] * c + tdrow[y], or, for columns on kc's leftmost
             * path (rel[y] == 0), the match of the two nodes, up[y-1] + rename: a tree
             * distance, stored in both layouts. */
            const __m256i lav = _mm256_set1_epi16(R->lid[i]);
            int16_t *tdcol = tdcr + i;
            for (y = 1; y < w; y += 16) {
                const __m256i u = _mm256_loadu_si256((const __m256i *)(up + y));
                const __m256i ud = _mm256_loadu_si256((const __m256i *)(up + y - 1));
                const __m256i r = _mm256_loadu_si256((const __m256i *)(rel16 + y));
                const __m256i l = _mm256_loadu_si256((const __m256i *)(lb + y - 1));
                const __m256i t = _mm256_loadu_si256((const __m256i *)(tdrow + y - 1));
                const __m256i off = _mm256_loadu_si256((const __m256i *)(yo + y));
                const __m256i onpath = _mm256_cmpeq_epi16(r, zero);
                const __m256i diag =
                    _mm256_adds_epi16(ud, _mm256_andnot_si256(_mm256_cmpeq_epi16(l, lav), renv));
                const __m256i other = _mm256_adds_epi16(_mm256_mullo_epi16(r, cost_c), t);
                __m256i v = _mm256_min_epi16(_mm256_adds_epi16(u, cost_r),
                                             _mm256_blendv_epi8(other, diag, onpath));
                v = _mm256_min_epi16(pm_scan16(_mm256_sub_epi16(v, off), inf, bc7), carry);
                carry = pm_last16(v, bc7);
                v = _mm256_adds_epi16(v, off);
                _mm256_storeu_si256((__m256i *)(row + y), v);
                _mm256_storeu_si256((__m256i *)(tdrow + y - 1),
                                    _mm256_blendv_epi8(t, v, onpath));
            }
            if (scatter)
                for (p = 0; p < npath; p++) tdcol[pathoff[p]] = row[path[p]];
        } else {
            /* candidate f[rel[y]] + tdrow[y], f[rel[y]] gathered at li (see above) */
            int16_t *g = gmat + (R->kdepth[i] - kd0) * w;
            if (li == i) {
                copy16(g, up - 1, 1, w - 1); /* g[y] = f[y - 1]: right for leaf columns */
                gather_icol(g, up, icol, irel, 0, ni, 0, 0, 0);
            }
            for (y = 1; y < w; y += 16) {
                const __m256i u = _mm256_loadu_si256((const __m256i *)(up + y));
                const __m256i gv = _mm256_loadu_si256((const __m256i *)(g + y));
                const __m256i t = _mm256_loadu_si256((const __m256i *)(tdrow + y - 1));
                const __m256i off = _mm256_loadu_si256((const __m256i *)(yo + y));
                __m256i v =
                    _mm256_min_epi16(_mm256_adds_epi16(u, cost_r), _mm256_adds_epi16(gv, t));
                v = _mm256_min_epi16(pm_scan16(_mm256_sub_epi16(v, off), inf, bc7), carry);
                carry = pm_last16(v, bc7);
                _mm256_storeu_si256((__m256i *)(row + y), _mm256_adds_epi16(v, off));
            }
        }
        up = row;
    }
}

/* One keyroot pair: kr of side R as rows, kc (the ckey-th keyroot) of side C as columns.
 * tdrc: tree distances R x C (stride C->n); tdcr: the same, C x R (stride R->n), written only
 * if scatter (when no later pair reads them from there).  rows: two row buffers `stride` cells
 * apart; gmat: gathered rows.  Only the cells with |X - Y| <= band are computed (X, Y: the
 * rows' and columns' node numbers); the others are INF. */
static TED_TARGET void pair_band(const Side *R, const Side *C, Py_ssize_t kr, Py_ssize_t kc,
                                 Py_ssize_t ckey, int16_t *tdrc, int16_t *tdcr, int16_t ren,
                                 Py_ssize_t band, int scatter, int16_t *rows, Py_ssize_t stride,
                                 int16_t *gmat) {
    const Py_ssize_t lkr = R->lml[kr], lkc = C->lml[kc];
    const Py_ssize_t m = kr - lkr + 2, w = kc - lkc + 2, nc = C->n;
    /* row x, column y: X - Y = x - y + shift (row x is node lkr + x - 1, column y lkc + y - 1) */
    const Py_ssize_t shift = lkr - lkc;
    const int32_t kd0 = R->kdepth[kr] + 1;
    const int16_t *lb = C->lid + lkc, *yo = C->ramp; /* lb[y - 1]: label of column y */
    const int16_t *rel16 = C->rel16 + C->relofs[ckey];
    const int16_t *path = C->path + C->pathofs[ckey];
    const Py_ssize_t *pathoff = C->pathoff + C->pathofs[ckey];
    const Py_ssize_t npath = C->pathofs[ckey + 1] - C->pathofs[ckey];
    const int16_t *icol = C->icol + C->icolofs[ckey], *irel = C->irel + C->icolofs[ckey];
    const Py_ssize_t ni = C->icolofs[ckey + 1] - C->icolofs[ckey];
    /* row 0 (no node of R) at column r is in the band iff r in [rlo, rhi] */
    const Py_ssize_t rlo = ted_max(0, shift - band), rhi = ted_min(w, shift + band);
    const __m256i inf = _mm256_set1_epi16(TED_INF);
    const __m256i bc7 = _mm256_setr_epi8(14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15,
                                         14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15,
                                         14, 15, 14, 15);
    const __m256i cost_r = _mm256_set1_epi16(R->ramp[1]), cost_c = _mm256_set1_epi16(yo[1]);
    const __m256i renv = _mm256_set1_epi16(ren), zero = _mm256_setzero_si256();
    const __m256i rlov = _mm256_set1_epi16((int16_t)ted_min(rlo, w));
    const __m256i rhiv = _mm256_set1_epi16((int16_t)rhi);
    const int16_t *up;
    Py_ssize_t x, y, p, lo, hi, plo, phi;

    /* Row 0, as far as row 1 reads it: columns [lo - 1, hi] of row 1's range; a cell is the
     * gap ramp in the band, INF outside. */
    lo = ted_min(w, ted_max(1, 1 + shift - band));
    hi = ted_max(lo - 1, ted_min(w - 1, 1 + shift + band));
    {
        int16_t *row0 = rows;
        copy16(row0, yo, lo - 1, hi);
        for (y = lo - 1; y <= hi && y < rlo; y++) row0[y] = TED_INF;
        for (y = ted_max(lo - 1, rhi + 1); y <= hi; y++) row0[y] = TED_INF;
        row0[hi + 1] = TED_INF;
        up = row0;
        plo = lo - 1;
        phi = hi;
    }
    for (x = 1; x < m; x++) {
        const Py_ssize_t i = lkr + x - 1, li = R->lml[i];
        int16_t *row = rows + (x & 1) * stride;
        int16_t *tdrow = tdrc + i * nc + lkc; /* tdrow[y - 1]: column y */
        const Py_ssize_t d0 = x + shift;      /* X - Y of column 0 */
        __m256i carry;
        lo = ted_min(w, ted_max(1, d0 - band)); /* columns [lo, hi] (maybe empty) */
        hi = ted_max(lo - 1, ted_min(w - 1, d0 + band));
        row[0] = (d0 <= band && d0 >= -band) ? R->ramp[x] : TED_INF;
        carry = lo == 1 ? _mm256_set1_epi16(row[0]) : inf;
        if (li == lkr) {
            /* Row on the leftmost path of kr: the forest left of it is empty, so the
             * tree-match candidate is row0[rel[y]] + tdrow[y] (row 0: the gap ramp, in the
             * band), or, for columns on kc's leftmost path (rel[y] == 0), the match of the
             * two nodes, up[y-1] + rename: a tree distance, stored in both layouts. */
            const __m256i lav = _mm256_set1_epi16(R->lid[i]);
            int16_t *tdcol = tdcr + i;
            for (y = lo; y <= hi; y += 16) {
                const __m256i u = _mm256_loadu_si256((const __m256i *)(up + y));
                const __m256i ud = _mm256_loadu_si256((const __m256i *)(up + y - 1));
                const __m256i r = _mm256_loadu_si256((const __m256i *)(rel16 + y));
                const __m256i l = _mm256_loadu_si256((const __m256i *)(lb + y - 1));
                const __m256i t = _mm256_loadu_si256((const __m256i *)(tdrow + y - 1));
                const __m256i off = _mm256_loadu_si256((const __m256i *)(yo + y));
                const __m256i onpath = _mm256_cmpeq_epi16(r, zero);
                const __m256i diag =
                    _mm256_adds_epi16(ud, _mm256_andnot_si256(_mm256_cmpeq_epi16(l, lav), renv));
                const __m256i outside =
                    _mm256_or_si256(_mm256_cmpgt_epi16(rlov, r), _mm256_cmpgt_epi16(r, rhiv));
                const __m256i other = _mm256_adds_epi16(
                    _mm256_blendv_epi8(_mm256_mullo_epi16(r, cost_c), inf, outside), t);
                __m256i v = _mm256_min_epi16(_mm256_adds_epi16(u, cost_r),
                                             _mm256_blendv_epi8(other, diag, onpath));
                v = _mm256_min_epi16(pm_scan16(_mm256_sub_epi16(v, off), inf, bc7), carry);
                carry = pm_last16(v, bc7);
                _mm256_storeu_si256((__m256i *)(row + y), _mm256_adds_epi16(v, off));
            }
            for (p = lower_bound16(path, npath, lo); p < npath && path[p] <= hi; p++) {
                tdrow[path[p] - 1] = row[path[p]];
                if (scatter) tdcol[pathoff[p]] = row[path[p]];
            }
        } else {
            /* candidate f[rel[y]] + tdrow[y], f[rel[y]] gathered at li (see above) */
            int16_t *g = gmat + (R->kdepth[i] - kd0) * w;
            if (li == i) {
                /* f = up: valid at column 0 and [plo, phi + 1]; g is needed by the rows up to
                 * the path's top, columns [lo, ghi]; INF where f's cell is outside the band */
                const Py_ssize_t ghi = ted_min(w - 1, R->ptop[i] - lkr + 1 + shift + band);
                const Py_ssize_t cend = ted_min(ghi, phi + 2);
                copy16(g, up - 1, lo, cend); /* g[y] = f[y - 1]: right for leaf columns */
                for (y = cend + 1; y <= ghi; y++) g[y] = TED_INF;
                /* internal columns in [lo, ghi]; f's cells outside the band are stale, so
                 * checked, unless f covers all the columns they can read (< ghi) */
                gather_icol(g, up, icol, irel, lower_bound16(icol, ni, lo),
                            lower_bound16(icol, ni, ghi + 1), plo > 1 || phi + 2 < ghi, plo,
                            (size_t)(phi + 1 - plo));
            }
            for (y = lo; y <= hi; y += 16) {
                const __m256i u = _mm256_loadu_si256((const __m256i *)(up + y));
                const __m256i gv = _mm256_loadu_si256((const __m256i *)(g + y));
                const __m256i t = _mm256_loadu_si256((const __m256i *)(tdrow + y - 1));
                const __m256i off = _mm256_loadu_si256((const __m256i *)(yo + y));
                __m256i v =
                    _mm256_min_epi16(_mm256_adds_epi16(u, cost_r), _mm256_adds_epi16(gv, t));
                v = _mm256_min_epi16(pm_scan16(_mm256_sub_epi16(v, off), inf, bc7), carry);
                carry = pm_last16(v, bc7);
                _mm256_storeu_si256((__m256i *)(row + y), _mm256_adds_epi16(v, off));
            }
        }
        /* the next row reads this one at [its lo - 1, its hi], within column 0, [lo, hi + 1] */
        row[hi + 1] = TED_INF;
        plo = lo;
        phi = hi;
        up = row;
    }
}

/* Owned arrays behind a Side. */
typedef struct {
    int16_t *lid, *ramp, *rel16, *path, *icol, *irel;
    Py_ssize_t *relofs, *pathofs, *pathoff, *icolofs;
} SideMem;

static void side_free(SideMem *s) {
    free(s->lid);
    free(s->ramp);
    free(s->rel16);
    free(s->path);
    free(s->icol);
    free(s->irel);
    free(s->relofs);
    free(s->pathofs);
    free(s->pathoff);
    free(s->icolofs);
    memset(s, 0, sizeof(*s));
}

static int cmp_ll(const void *x, const void *y) {
    const long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

/* Dense ids (0 .. distinct labels - 1) of the labels of both trees, equal labels equal ids;
 * arrays padded by 16.  Returns -1 on allocation failure. */
static int dense_label_ids(const Prepared *a, const Prepared *b, SideMem *sa, SideMem *sb) {
    const Py_ssize_t n = a->n + b->n;
    long long *sorted = (long long *)malloc((size_t)n * sizeof(long long));
    Py_ssize_t i, distinct = 0;
    sa->lid = (int16_t *)calloc((size_t)a->n + 16, sizeof(int16_t));
    sb->lid = (int16_t *)calloc((size_t)b->n + 16, sizeof(int16_t));
    if (!sorted || !sa->lid || !sb->lid) {
        free(sorted);
        return -1;
    }
    memcpy(sorted, a->lab, (size_t)a->n * sizeof(long long));
    memcpy(sorted + a->n, b->lab, (size_t)b->n * sizeof(long long));
    qsort(sorted, (size_t)n, sizeof(long long), cmp_ll);
    for (i = 0; i < n; i++)
        if (distinct == 0 || sorted[distinct - 1] != sorted[i]) sorted[distinct++] = sorted[i];
    for (i = 0; i < n; i++) {
        const long long v = i < a->n ? a->lab[i] : b->lab[i - a->n];
        Py_ssize_t lo = 0, hi = distinct - 1;
        while (lo < hi) {
            const Py_ssize_t mid = lo + (hi - lo) / 2;
            if (sorted[mid] < v)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (i < a->n)
            sa->lid[i] = (int16_t)lo;
        else
            sb->lid[i - a->n] = (int16_t)lo;
    }
    free(sorted);
    return 0;
}

/* The column tables of one tree (see Side) and its gap ramp, padded.  other_n: the number of
 * nodes of the other tree (the stride of the b x a layout).  -1 on allocation failure. */
static int side_tables(const Prepared *t, Py_ssize_t other_n, int16_t gap, SideMem *s,
                       Side *out) {
    const Py_ssize_t nkr = t->nkr;
    Py_ssize_t k, y, total = 0, npath = 0, ni = 0;
    s->relofs = (Py_ssize_t *)malloc(((size_t)nkr + 1) * sizeof(Py_ssize_t));
    s->pathofs = (Py_ssize_t *)malloc(((size_t)nkr + 1) * sizeof(Py_ssize_t));
    s->icolofs = (Py_ssize_t *)malloc(((size_t)nkr + 1) * sizeof(Py_ssize_t));
    s->ramp = (int16_t *)calloc((size_t)t->n + 48, sizeof(int16_t));
    s->path = (int16_t *)malloc(((size_t)t->n + 1) * sizeof(int16_t));
    s->pathoff = (Py_ssize_t *)malloc(((size_t)t->n + 1) * sizeof(Py_ssize_t));
    if (!s->relofs || !s->pathofs || !s->icolofs || !s->ramp || !s->path || !s->pathoff)
        return -1;
    for (k = 0; k < nkr; k++) total += t->kr[k] - t->lml[t->kr[k]] + 2 + 16;
    s->rel16 = (int16_t *)malloc((size_t)total * sizeof(int16_t));
    s->icol = (int16_t *)malloc((size_t)total * sizeof(int16_t));
    s->irel = (int16_t *)malloc((size_t)total * sizeof(int16_t));
    if (!s->rel16 || !s->icol || !s->irel) return -1;
    total = 0;
    for (k = 0; k < nkr; k++) {
        const Py_ssize_t kk = t->kr[k], lk = t->lml[kk], w = kk - lk + 2;
        int16_t *r16 = s->rel16 + total;
        s->relofs[k] = total;
        s->pathofs[k] = npath;
        s->icolofs[k] = ni;
        r16[0] = 0;
        for (y = 1; y < w; y++) {
            const Py_ssize_t r = t->lml[lk + y - 1] - lk;
            r16[y] = (int16_t)r;
            if (r == 0) {
                s->pathoff[npath] = (lk + y - 1) * other_n;
                s->path[npath++] = (int16_t)y;
            }
            if (r != y - 1) {
                s->icol[ni] = (int16_t)y;
                s->irel[ni++] = (int16_t)r;
            }
        }
        for (y = w; y < w + 16; y++) r16[y] = 1; /* padding: not 0, "on the path" */
        total += w + 16;
    }
    s->relofs[nkr] = total;
    s->pathofs[nkr] = npath;
    s->icolofs[nkr] = ni;
    for (y = 1; y <= t->n; y++) s->ramp[y] = (int16_t)(s->ramp[y - 1] + gap);
    out->n = t->n;
    out->lml = t->lml;
    out->kdepth = t->kdepth;
    out->ptop = t->ptop;
    out->lid = s->lid;
    out->ramp = s->ramp;
    out->rel16 = s->rel16;
    out->path = s->path;
    out->pathoff = s->pathoff;
    out->icol = s->icol;
    out->irel = s->irel;
    out->relofs = s->relofs;
    out->pathofs = s->pathofs;
    out->icolofs = s->icolofs;
    return 0;
}

/* The int16 AVX2 route: keyroot pairs in Zhang-Shasha order, each in its better orientation,
 * first within the band `band` (<= 0: automatic), widened as described above until exact.
 * Returns 0, or -1 on allocation failure. */
static int zs_int16_avx2(const Prepared *a, const Prepared *b, int16_t ins, int16_t del,
                         int16_t ren, Py_ssize_t band, double *result) {
    const size_t cells = (size_t)a->n * (size_t)b->n;
    const Py_ssize_t stride = ted_max(a->n, b->n) + 48;
    const Py_ssize_t full = ted_max(a->n, b->n) + 1; /* no cell has |X - Y| > full */
    const int16_t cmin = ins < del ? ins : del;
    SideMem ma, mb;
    Side sa, sb;
    int16_t *td = NULL, *tdt = NULL, *rows = NULL, *gmat = NULL;
    Py_ssize_t i, ka, kb;
    int32_t maxkd = 0;
    int16_t found_final = 0;
    int rc = -1;
    memset(&ma, 0, sizeof(ma));
    memset(&mb, 0, sizeof(mb));
    if (dense_label_ids(a, b, &ma, &mb) < 0) goto done;
    if (side_tables(a, b->n, del, &ma, &sa) < 0 || side_tables(b, a->n, ins, &mb, &sb) < 0)
        goto done;
    for (i = 0; i < a->n; i++) maxkd = a->kdepth[i] > maxkd ? a->kdepth[i] : maxkd;
    for (i = 0; i < b->n; i++) maxkd = b->kdepth[i] > maxkd ? b->kdepth[i] : maxkd;
    td = (int16_t *)malloc((cells + 32) * sizeof(int16_t));
    tdt = (int16_t *)malloc((cells + 32) * sizeof(int16_t));
    rows = (int16_t *)calloc(2 * (size_t)stride, sizeof(int16_t));
    gmat = (int16_t *)calloc(((size_t)maxkd + 1) * (size_t)stride, sizeof(int16_t));
    if (!td || !tdt || !rows || !gmat) goto done;
    /* cells outside the band are never written: INF (and, in a wider rerun, still outside) */
    for (i = 0; i < (Py_ssize_t)cells + 32; i++) td[i] = tdt[i] = TED_INF;
    if (cmin <= 0) band = full; /* free gaps: no band */
    if (band <= 0) /* the distance is at least |n1 - n2| * cmin */
        band = 2 * (a->n > b->n ? a->n - b->n : b->n - a->n) + ted_max(a->n, b->n) / 32 + 8;
    for (;;) {
        int16_t found;
        int transposed = 0;
        if (band > full) band = full;
        for (ka = 0; ka < a->nkr; ka++) {
            const Py_ssize_t k1 = a->kr[ka], l1 = a->lml[k1], m = k1 - l1;
            for (kb = 0; kb < b->nkr; kb++) {
                const Py_ssize_t k2 = b->kr[kb], l2 = b->lml[k2], w = k2 - l2;
                /* The orientation is by subtree size: a pair containing this one is transposed
                 * only if its b subtree is smaller than its a subtree.  So a normal pair's tree
                 * distances are never read from the b x a layout when |b subtree| >= |tree a|,
                 * nor a transposed pair's from the a x b layout when |a subtree| > |tree b|. */
                transposed = w < m;
                if (l1 - k2 > band || l2 - 1 - k1 > band) continue; /* all outside the band */
                if (k1 - l2 + 1 <= band && k2 - l1 + 1 <= band) { /* all inside */
                    if (!transposed)
                        pair_full(&sa, &sb, k1, k2, kb, td, tdt, ren, w + 1 < a->n, rows, stride,
                                  gmat);
                    else
                        pair_full(&sb, &sa, k2, k1, ka, tdt, td, ren, m + 1 <= b->n, rows,
                                  stride, gmat);
                } else if (!transposed) {
                    pair_band(&sa, &sb, k1, k2, kb, td, tdt, ren, band, w + 1 < a->n, rows,
                              stride, gmat);
                } else {
                    pair_band(&sb, &sa, k2, k1, ka, tdt, td, ren, band, m + 1 <= b->n, rows,
                              stride, gmat);
                }
            }
        }
        /* the last pair, the two roots, holds the distance (in its own layout at least) */
        found = transposed ? tdt[cells - 1] : td[cells - 1];
        found_final = found;
        if (band >= full || found <= band * cmin) break;
        band = found >= TED_INF ? full : ted_max(band + 1, (found + cmin - 1) / cmin);
    }
    *result = (double)found_final;
    rc = 0;
done:
    free(td);
    free(tdt);
    free(rows);
    free(gmat);
    side_free(&ma);
    side_free(&mb);
    return rc;
}
#endif /* TED_AVX2 */

#define DEFAULT_MAX_CELLS 400000000LL

static int have_avx2 = 0;    /* the CPU has AVX2 (and the vector code was compiled): at import */
static int simd_enabled = 1; /* set_simd(False) turns the vector code off (tests, benchmarks) */
static Py_ssize_t first_band = 0; /* set_band(k): the vector code's first band; 0: automatic */

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
    int mirror, ok = 1, use_int, use_short, simd;
#if TED_AVX2
    const Py_ssize_t band = first_band; /* read while holding the GIL */
#endif
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
    simd = use_short && have_avx2 && simd_enabled;
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
    if (ok && simd) {
#if TED_AVX2
        if (zs_int16_avx2(&a, &b, (int16_t)ins, (int16_t)del, (int16_t)ren, band, &result) < 0)
            ok = 0;
#endif
    } else if (ok) {
        td = malloc(cells_td * cell);
        fd = malloc(cells_fd * cell);
        ramp = malloc(((size_t)r1.n + (size_t)r2.n + 2) * cell);
        if (!td || !fd || !ramp || column_tables(&b, &rel, &relofs) < 0) ok = 0;
    }
    if (ok && !simd) {
        if (use_short)
            result = (double)zs_int16(&a, &b, (int16_t)ins, (int16_t)del, (int16_t)ren,
                                      (int16_t *)td, (int16_t *)fd, (int16_t *)ramp, rel,
                                      relofs);
        else if (use_int)
            result = (double)zs_int32(&a, &b, (int32_t)ins, (int32_t)del, (int32_t)ren,
                                      (int32_t *)td, (int32_t *)fd, (int32_t *)ramp, rel,
                                      relofs);
        else
            result = zs_double(&a, &b, ins, del, ren, (double *)td, (double *)fd, (double *)ramp,
                               rel, relofs);
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

PyDoc_STRVAR(simd_kernel_doc,
             "simd_kernel()\n--\n\n"
             "Name of the vector kernel used for small integer costs: 'avx2', or 'none' (not "
             "compiled in, CPU without AVX2, or turned off with set_simd(False)).");

static PyObject *py_simd_kernel(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyUnicode_FromString(have_avx2 && simd_enabled ? "avx2" : "none");
}

PyDoc_STRVAR(set_simd_doc,
             "set_simd(enabled)\n--\n\n"
             "Turn the vector kernel on or off (both give the same distances; for tests and "
             "benchmarks).  Returns the previous setting.");

static PyObject *py_set_simd(PyObject *self, PyObject *arg) {
    const int previous = simd_enabled, value = PyObject_IsTrue(arg);
    (void)self;
    if (value < 0) return NULL;
    simd_enabled = value;
    return PyBool_FromLong(previous);
}

PyDoc_STRVAR(set_band_doc,
             "set_band(k)\n--\n\n"
             "Width of the first band of the vector kernel (0: automatic).  Any k gives the same "
             "distances (the band widens until the result is proven exact); for tests and "
             "benchmarks.  Returns the previous setting.");

static PyObject *py_set_band(PyObject *self, PyObject *arg) {
    const Py_ssize_t previous = first_band, value = PyLong_AsSsize_t(arg);
    (void)self;
    if (value == -1 && PyErr_Occurred()) return NULL;
    if (value < 0) {
        PyErr_SetString(PyExc_ValueError, "band must be >= 0");
        return NULL;
    }
    first_band = value;
    return PyLong_FromSsize_t(previous);
}

static PyMethodDef ted_methods[] = {
    {"tree_edit_distance", (PyCFunction)(void (*)(void))py_tree_edit_distance,
     METH_VARARGS | METH_KEYWORDS, tree_edit_distance_doc},
    {"simd_kernel", py_simd_kernel, METH_NOARGS, simd_kernel_doc},
    {"set_simd", py_set_simd, METH_O, set_simd_doc},
    {"set_band", py_set_band, METH_O, set_band_doc},
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

PyMODINIT_FUNC PyInit__ted(void) {
#if TED_AVX2
    have_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
    return PyModule_Create(&ted_module);
}
