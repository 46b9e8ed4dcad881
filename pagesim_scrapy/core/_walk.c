/*
 * Breadth-first summary walk over the libxml2 tree behind an lxml element.
 *
 * Why: walking a parsed page from Python creates one lxml proxy object per element and calls
 * into lxml for its tag and attributes; on real pages that costs as much as parsing the page.
 * This module reads the libxml2 nodes directly (lxml's public `LxmlElement` struct holds the
 * node pointer), groups elements by their raw "descriptor" (tag plus attribute names, plus
 * the values of the attributes that shape labels, normalised) and calls back into Python once
 * per distinct descriptor to get its three label codes; descriptors are remembered across
 * pages, so on a crawl of one site the callback is rare.  Per element, no Python object is made.
 *
 * The result is identical to pagesim_scrapy.core.summary's pure-Python walk, which stays as the
 * fallback (and the reference the tests compare against).  Anything this walker does not
 * expect (attribute values made of entity references, ...) raises `Unsupported` and the caller
 * falls back to the Python walk.
 *
 * The module also holds the few per-page loops of the site model that made one Python object
 * per feature or per node: packing and unpacking a page's features, the parent -> child pairs
 * of a walk's codes, a page's weight shared with each template, and the weight every two
 * pages of the crawl fill's pool share.  Each gives the very result of its Python form in
 * site.py / summary.py / clusterfill.py, which stays as the fallback.
 *
 * The tree must not change during the call: the GIL is held throughout, and the only Python
 * code run is the `resolve` callback, which must not touch the tree.  A Walker is not
 * reentrant (the callback may let other threads run): callers serialise walks on one Walker.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "libxml/tree.h"

/* lxml's public element layout (lxml/lxml.etree.h): the node pointer follows the document. */
typedef struct {
    PyObject_HEAD
    void *doc;
    xmlNode *c_node;
    PyObject *tag;
} LxmlElementLayout;

static PyObject *element_type = NULL; /* lxml.etree._Element */
static PyObject *Unsupported = NULL;

/* ---- growable byte buffer ------------------------------------------------------------ */

typedef struct {
    char *data;
    size_t len, cap;
} Buffer;

static int buf_reserve(Buffer *b, size_t extra) {
    if (b->len + extra <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra) cap *= 2;
    char *data = PyMem_Realloc(b->data, cap);
    if (!data) { PyErr_NoMemory(); return -1; }
    b->data = data;
    b->cap = cap;
    return 0;
}

static int buf_add(Buffer *b, const char *s, size_t n) {
    if (n == 0) return 0; /* b->data may still be NULL: memcpy(NULL, s, 0) is undefined */
    if (buf_reserve(b, n) < 0) return -1;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}

static int buf_add_str(Buffer *b, const char *s) { return buf_add(b, s, strlen(s) + 1); }

/* ---- growable arrays ----------------------------------------------------------------- */

typedef struct {
    xmlNode **node;
    Py_ssize_t *parent;
    Py_ssize_t len, cap;
} Level;

static int level_push(Level *l, xmlNode *node, Py_ssize_t parent) {
    if (l->len == l->cap) {
        Py_ssize_t cap = l->cap ? l->cap * 2 : 64;
        xmlNode **nodes = PyMem_Realloc(l->node, (size_t)cap * sizeof(xmlNode *));
        if (!nodes) { PyErr_NoMemory(); return -1; }
        l->node = nodes;
        Py_ssize_t *parents = PyMem_Realloc(l->parent, (size_t)cap * sizeof(Py_ssize_t));
        if (!parents) { PyErr_NoMemory(); return -1; }
        l->parent = parents;
        l->cap = cap;
    }
    l->node[l->len] = node;
    l->parent[l->len] = parent;
    l->len++;
    return 0;
}

static void level_free(Level *l) {
    PyMem_Free(l->node);
    PyMem_Free(l->parent);
    l->node = NULL;
    l->parent = NULL;
    l->len = l->cap = 0;
}

/* ---- string tables: bytes -> index, open addressing over an arena -------------------- */

typedef struct {
    uint64_t hash;
    size_t offset, length; /* into the arena */
    Py_ssize_t index;      /* -1: empty slot */
} Slot;

typedef struct {
    Slot *slots;
    size_t mask;
    Py_ssize_t count;
    Buffer arena;
} StrTable;

/* A multiplicative hash over 8-byte words (signatures run to hundreds of bytes of classes). */
static uint64_t hash_bytes(const char *s, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
    while (n >= 8) {
        uint64_t word;
        memcpy(&word, s, 8);
        h = (h ^ word) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
        s += 8;
        n -= 8;
    }
    uint64_t tail = 0;
    memcpy(&tail, s, n);
    h = (h ^ tail) * 0xC4CEB9FE1A85EC53ULL;
    return h ^ (h >> 29);
}

static int table_init(StrTable *t) {
    t->mask = 255;
    t->slots = PyMem_Malloc((t->mask + 1) * sizeof(Slot));
    if (!t->slots) { PyErr_NoMemory(); return -1; }
    for (size_t i = 0; i <= t->mask; i++) t->slots[i].index = -1;
    t->count = 0;
    t->arena = (Buffer){0};
    return 0;
}

static void table_free(StrTable *t) {
    PyMem_Free(t->slots);
    PyMem_Free(t->arena.data);
    *t = (StrTable){0};
}

static int table_grow(StrTable *t) {
    size_t mask = t->mask * 2 + 1;
    Slot *slots = PyMem_Malloc((mask + 1) * sizeof(Slot));
    if (!slots) { PyErr_NoMemory(); return -1; }
    for (size_t i = 0; i <= mask; i++) slots[i].index = -1;
    for (size_t i = 0; i <= t->mask; i++) {
        Slot s = t->slots[i];
        if (s.index < 0) continue;
        size_t j = (size_t)s.hash & mask;
        while (slots[j].index >= 0) j = (j + 1) & mask;
        slots[j] = s;
    }
    PyMem_Free(t->slots);
    t->slots = slots;
    t->mask = mask;
    return 0;
}

/* Index of `key` (`*is_new` set when it was added now); -1 on error. */
static Py_ssize_t table_intern(StrTable *t, const char *key, size_t n, int *is_new) {
    uint64_t h = hash_bytes(key, n);
    size_t j = (size_t)h & t->mask;
    *is_new = 0;
    while (t->slots[j].index >= 0) {
        Slot *s = &t->slots[j];
        /* n == 0: the arena may still be empty (NULL), and memcmp(NULL, ..., 0) is undefined */
        if (s->hash == h && s->length == n &&
            (n == 0 || memcmp(t->arena.data + s->offset, key, n) == 0))
            return s->index;
        j = (j + 1) & t->mask;
    }
    size_t offset = t->arena.len;
    if (buf_add(&t->arena, key, n) < 0) return -1;
    Py_ssize_t index = t->count++;
    t->slots[j] = (Slot){h, offset, n, index};
    *is_new = 1;
    if ((size_t)t->count * 2 > t->mask && table_grow(t) < 0) return -1;
    return index;
}

/* ---- reading nodes ------------------------------------------------------------------- */

/* lxml's notion of a child it iterates over (and counts in len()). */
static int is_lxml_child(const xmlNode *n) {
    return n->type == XML_ELEMENT_NODE || n->type == XML_COMMENT_NODE ||
           n->type == XML_ENTITY_REF_NODE || n->type == XML_PI_NODE;
}

/* Append a node's or attribute's name as lxml spells it ("{href}name" when namespaced), \0. */
static int add_name(Buffer *b, const xmlNs *ns, const xmlChar *name) {
    if (ns && ns->href) {
        const char *href = (const char *)ns->href;
        if (buf_add(b, "{", 1) < 0 || buf_add(b, href, strlen(href)) < 0 || buf_add(b, "}", 1) < 0)
            return -1;
    }
    return buf_add_str(b, (const char *)name);
}

/* An attribute's value as xmlGetNsProp gives it (no \0); 1 when it cannot be read here. */
static int read_value(Buffer *b, const xmlAttr *attr) {
    b->len = 0;
    for (const xmlNode *c = attr->children; c; c = c->next) {
        if (c->type != XML_TEXT_NODE && c->type != XML_CDATA_SECTION_NODE) return 1;
        if (c->content && buf_add(b, (const char *)c->content, strlen((const char *)c->content)) < 0)
            return -1;
    }
    return 0;
}

/* Whitespace as Python's str.split() sees it, for ASCII. */
static int is_space(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static int is_word(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/*
 * Append summary.normalise_value(" ".join(value.split())) for an ASCII value, then \0: words
 * of >= 6 word characters mixing letters and digits become "~", digit runs "0".  Values with
 * other bytes are appended raw; Python normalises those (normalisation is idempotent, so
 * normalising a value twice is harmless).
 */
static int add_normalised(Buffer *out, const char *v, size_t n) {
    /* Most values (class lists) hold no digit, no odd whitespace, nothing but ASCII: copied. */
    unsigned odd = 0, prev_space = 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        unsigned is_blank = c == ' ';
        odd |= c >= 0x80 || (c >= '0' && c <= '9') || (c < ' ' && is_space(c)) || (is_blank & prev_space);
        prev_space = is_blank;
    }
    if (!odd && !(n && (unsigned char)v[n - 1] == ' '))
        return buf_add(out, v, n) < 0 ? -1 : buf_add(out, "", 1);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v[i] >= 0x80) return buf_add(out, v, n) < 0 ? -1 : buf_add(out, "", 1);
    if (buf_reserve(out, n + 1) < 0) return -1;
    char *w = out->data + out->len;
    size_t i = 0, k = 0;
    int first = 1;
    while (i < n) {
        while (i < n && is_space((unsigned char)v[i])) i++;
        if (i == n) break;
        if (!first) w[k++] = ' ';
        first = 0;
        while (i < n && !is_space((unsigned char)v[i])) {
            unsigned char c = (unsigned char)v[i];
            if (!is_word(c)) { w[k++] = (char)c; i++; continue; }
            size_t j = i;
            int digit = 0, letter = 0;
            while (j < n && is_word((unsigned char)v[j])) {
                unsigned char d = (unsigned char)v[j];
                digit |= d >= '0' && d <= '9';
                letter |= (d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z');
                j++;
            }
            if (j - i >= 6 && digit && letter) {
                w[k++] = '~';
            } else {
                for (size_t m = i; m < j; m++) {
                    unsigned char d = (unsigned char)v[m];
                    if (d >= '0' && d <= '9') {
                        if (m == i || !(v[m - 1] >= '0' && v[m - 1] <= '9')) w[k++] = '0';
                    } else {
                        w[k++] = (char)d;
                    }
                }
            }
            i = j;
        }
    }
    w[k++] = '\0';
    out->len += k;
    return 0;
}

/* ---- the walker ------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    char **skip;        /* tag names whose subtrees are left out */
    Py_ssize_t n_skip;
    char **names;       /* attributes whose values shape labels; NULL: every value, raw */
    Py_ssize_t n_names;
    PyObject *resolve;  /* (tag, ((name, value or None), ...)) -> 3-character codes */
    int native;         /* codes of ASCII descriptors computed here, not by `resolve` */
    char **rpsa_tags;   /* RPSA: (tag, attribute) pairs, lower-case, in the options' order */
    char **rpsa_names;
    Py_ssize_t n_rpsa;
    char **structural;  /* attributes whose (normalised) values the CSR label keeps */
    Py_ssize_t n_structural;
    Py_ssize_t limit;   /* descriptors kept before the table starts afresh */
    StrTable table;     /* descriptor signature -> index, kept across pages */
    PyObject *tags;     /* index -> tag str */
    PyObject *entries;  /* index -> codes */
    Buffer sig, value;  /* scratch */
} Walker;

/* ASCII case-insensitive equality with a lower-case name (the labels lower-case attribute
 * names, so on an XML tree "CLASS" shapes them as "class" does). */
static int equal_lower(const char *name, const char *lower) {
    for (; *name && *lower; name++, lower++) {
        unsigned char c = (unsigned char)*name;
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
        if (c != (unsigned char)*lower) return 0;
    }
    return *name == *lower;
}

static int wanted_value(const Walker *w, const xmlAttr *attr) {
    if (!w->names) return 1;
    if (attr->ns) return 0; /* a namespaced name never equals a plain structural name */
    const char *name = (const char *)attr->name;
    for (Py_ssize_t i = 0; i < w->n_names; i++)
        if (equal_lower(name, w->names[i])) return 1;
    return 0;
}

static int skipped_tag(const Walker *w, const xmlNode *node) {
    if (node->ns) return 0;
    const char *name = (const char *)node->name;
    for (Py_ssize_t i = 0; i < w->n_skip; i++)
        if (name[0] == w->skip[i][0] && strcmp(name, w->skip[i]) == 0) return 1;
    return 0;
}

/*
 * Signature of an element into w->sig: name \0, then per attribute its name \0 and either \1
 * value \0 (a value that shapes labels, normalised) or \2.  A raw class value goes into
 * `classes` (the page's class set).  Returns 0, -1 (error) or 1 (unsupported input).
 */
static int signature(Walker *w, const xmlNode *node, StrTable *classes, PyObject *class_values) {
    Buffer *b = &w->sig;
    b->len = 0;
    if (add_name(b, node->ns, node->name) < 0) return -1;
    for (const xmlAttr *attr = node->properties; attr; attr = attr->next) {
        if (add_name(b, attr->ns, attr->name) < 0) return -1;
        if (!wanted_value(w, attr)) {
            if (buf_add(b, "\2", 1) < 0) return -1;
            continue;
        }
        int rc = read_value(&w->value, attr);
        if (rc) return rc;
        const char *v = w->value.data ? w->value.data : "";
        size_t n = w->value.len;
        if (buf_add(b, "\1", 1) < 0) return -1;
        if (w->names) {
            if (add_normalised(b, v, n) < 0) return -1;
        } else if (buf_add(b, v, n) < 0 || buf_add(b, "", 1) < 0) {
            return -1;
        }
        if (!attr->ns && strcmp((const char *)attr->name, "class") == 0) {
            int is_new;
            if (table_intern(classes, v, n, &is_new) < 0) return -1;
            if (is_new) {
                PyObject *css = PyUnicode_DecodeUTF8(v, (Py_ssize_t)n, "replace");
                if (!css || PyList_Append(class_values, css) < 0) { Py_XDECREF(css); return -1; }
                Py_DECREF(css);
            }
        }
    }
    return 0;
}

/* Decode a signature into (tag, ((name, value or None), ...)) for the resolve callback. */
static PyObject *decode_signature(const char *s, size_t n, PyObject **tag_out) {
    const char *end = s + n;
    size_t len = strlen(s);
    PyObject *tag = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace");
    if (!tag) return NULL;
    s += len + 1;
    PyObject *items = PyList_New(0);
    if (!items) { Py_DECREF(tag); return NULL; }
    while (s < end) {
        len = strlen(s);
        PyObject *name = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace");
        if (!name) goto fail;
        s += len + 1;
        PyObject *value;
        if (*s++ == '\1') {
            len = strlen(s);
            value = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace");
            s += len + 1;
            if (!value) { Py_DECREF(name); goto fail; }
        } else {
            value = Py_NewRef(Py_None);
        }
        PyObject *pair = PyTuple_Pack(2, name, value);
        Py_DECREF(name);
        Py_DECREF(value);
        if (!pair || PyList_Append(items, pair) < 0) { Py_XDECREF(pair); goto fail; }
        Py_DECREF(pair);
    }
    PyObject *result = PyList_AsTuple(items);
    Py_DECREF(items);
    if (!result) { Py_DECREF(tag); return NULL; }
    *tag_out = tag;
    return result;
fail:
    Py_DECREF(tag);
    Py_DECREF(items);
    return NULL;
}

/* ---- label codes of a descriptor, computed here ------------------------------------------ */

static uint32_t crc_table[256];

static void crc_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

/* summary.code_char of an ASCII label: 0x100 + 20 bits of its CRC-32 (zlib's). */
static Py_UCS4 code_of(const char *s, size_t n) {
    uint32_t c = 0xFFFFFFFFU;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ (unsigned char)s[i]) & 0xFF] ^ (c >> 8);
    return (Py_UCS4)(0x100 + ((c ^ 0xFFFFFFFFU) & 0xFFFFF));
}

typedef struct {
    const char *name, *value; /* name lower-cased into `names`; value "" when not read */
    size_t name_len, value_len;
} Attr;

#define MAX_ATTRS 64

static int in_list(char **list, Py_ssize_t n, const char *name) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0) return 1;
    return 0;
}

/* The attributes of a signature, names lower-cased into `names`; 1 when they are not what
 * the codes are computed for here (non-ASCII bytes, namespaced names, a name twice, too many). */
static int parse_attrs(const char *s, const char *end, Attr *attrs, Py_ssize_t *count, char *names) {
    for (const char *p = s; p < end; p++)
        if ((unsigned char)*p >= 0x80) return 1;
    Py_ssize_t n = 0;
    while (s < end) {
        if (n == MAX_ATTRS) return 1;
        size_t len = strlen(s);
        if (len == 0 || s[0] == '{') return 1;
        for (size_t i = 0; i <= len; i++) {
            char c = s[i];
            names[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
        }
        attrs[n].name = names;
        attrs[n].name_len = len;
        names += len + 1;
        s += len + 1;
        if (*s++ == '\1') {
            attrs[n].value = s;
            attrs[n].value_len = strlen(s);
            s += attrs[n].value_len + 1;
        } else {
            attrs[n].value = "";
            attrs[n].value_len = 0;
        }
        for (Py_ssize_t k = 0; k < n; k++)
            if (strcmp(attrs[k].name, attrs[n].name) == 0) return 1;
        n++;
    }
    *count = n;
    return 0;
}

static int add_part(Buffer *b, const Attr *a, int with_value) {
    return buf_add(b, "\x1f", 1) < 0 || buf_add(b, a->name, a->name_len) < 0 ||
                   buf_add(b, "=", 1) < 0 || (with_value && buf_add(b, a->value, a->value_len) < 0)
               ? -1
               : 0;
}

/* summary._LabelCache._compute's RPSA label: the tag, then each attribute the tag's RPSA
 * list names, when present, with its value. */
static int rpsa_label(const Walker *w, Buffer *b, const char *tag, const Attr *attrs, Py_ssize_t n) {
    int found = 0;
    for (Py_ssize_t r = 0; r < w->n_rpsa; r++) {
        if (strcmp(w->rpsa_tags[r], tag) != 0) continue;
        found = 1;
        for (Py_ssize_t i = 0; i < n; i++)
            if (strcmp(attrs[i].name, w->rpsa_names[r]) == 0 && add_part(b, &attrs[i], 1) < 0)
                return -1;
    }
    return found;
}

/* summary.csr_label: the tag, then every attribute by name, structural values kept (all of
 * them without normalisation, where the signature holds every value raw). */
static int csr_label(const Walker *w, Buffer *b, const Attr *attrs, Py_ssize_t n) {
    Py_ssize_t order[MAX_ATTRS];
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t j = i;
        while (j > 0 && strcmp(attrs[order[j - 1]].name, attrs[i].name) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const Attr *a = &attrs[order[i]];
        int keep = !w->names || in_list(w->structural, w->n_structural, a->name);
        if (add_part(b, a, keep) < 0) return -1;
    }
    return 0;
}

/* The three codes of a parsed descriptor (see native_codes). */
static int attrs_codes(Walker *w, const char *sig, size_t tag_len, const Attr *attrs,
                       Py_ssize_t count, Py_UCS4 codes[3]) {
    for (size_t i = 0; i < tag_len; i++)
        if ((unsigned char)sig[i] >= 0x80) return 1;
    Buffer *b = &w->value;
    codes[0] = code_of(sig, tag_len);
    b->len = 0;
    if (buf_add(b, sig, tag_len) < 0) return -1;
    int rc = rpsa_label(w, b, sig, attrs, count);
    if (rc < 0) return -1;
    codes[1] = rc ? code_of(b->data, b->len) : codes[0];
    if (!count) {
        codes[2] = codes[0];
        return 0;
    }
    b->len = 0;
    if (buf_add(b, sig, tag_len) < 0 || csr_label(w, b, attrs, count) < 0) return -1;
    codes[2] = code_of(b->data, b->len);
    return 0;
}

/* The rsn, rpsa and csr codes of a signature as summary.py computes them, into `codes`;
 * 1 when the descriptor is left to the Python `resolve` (see parse_attrs), -1 on error.
 * Why: every page of a crawl over many sites brings descriptors not met before, and the
 * Python callback made a dozen objects per descriptor. */
static int native_codes(Walker *w, const char *sig, size_t n, Py_UCS4 codes[3]) {
    const char *end = sig + n;
    size_t tag_len = strlen(sig);
    if (tag_len == 0 || sig[0] == '{') return 1;
    Attr attrs[MAX_ATTRS];
    Py_ssize_t count = 0;
    char *names = PyMem_Malloc(n + 1);
    if (!names) {
        PyErr_NoMemory();
        return -1;
    }
    int rc = parse_attrs(sig + tag_len + 1, end, attrs, &count, names);
    if (rc == 0) rc = attrs_codes(w, sig, tag_len, attrs, count, codes);
    PyMem_Free(names);
    return rc;
}

/* The codes of a new descriptor and its tag: computed here when native_codes can, else from
 * the Python `resolve`.  New references in *tag_out and the result; NULL on error. */
static PyObject *codes_of_new(Walker *w, PyObject **tag_out) {
    if (w->native) {
        Py_UCS4 codes[3];
        int rc = native_codes(w, w->sig.data, w->sig.len, codes);
        if (rc < 0) return NULL;
        if (rc == 0) {
            *tag_out = PyUnicode_DecodeASCII(w->sig.data, (Py_ssize_t)strlen(w->sig.data), "strict");
            if (!*tag_out) return NULL;
            return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, codes, 3);
        }
    }
    PyObject *items = decode_signature(w->sig.data, w->sig.len, tag_out);
    PyObject *entry = items ? PyObject_CallFunctionObjArgs(w->resolve, *tag_out, items, NULL) : NULL;
    Py_XDECREF(items);
    return entry;
}

/* Index of the node's descriptor, resolving new ones through Python; -1 error, -2 unsupported. */
static Py_ssize_t descriptor_of(Walker *w, const xmlNode *node, StrTable *classes, PyObject *class_values) {
    int rc = signature(w, node, classes, class_values);
    if (rc < 0) return -1;
    if (rc > 0) return -2;
    int is_new;
    Py_ssize_t index = table_intern(&w->table, w->sig.data, w->sig.len, &is_new);
    if (index < 0 || !is_new) return index;
    PyObject *tag = NULL;
    PyObject *entry = codes_of_new(w, &tag);
    if (entry && (!PyUnicode_Check(entry) || PyUnicode_GET_LENGTH(entry) != 3)) {
        PyErr_SetString(PyExc_TypeError, "resolve must return a 3-character str");
        Py_CLEAR(entry);
    }
    int ok = entry && PyList_Append(w->tags, tag) == 0 && PyList_Append(w->entries, entry) == 0;
    Py_XDECREF(tag);
    Py_XDECREF(entry);
    if (!ok) {
        /* forget the half-added descriptor: start the table afresh */
        table_free(&w->table);
        if (table_init(&w->table) == 0) {
            PyList_SetSlice(w->tags, 0, PY_SSIZE_T_MAX, NULL);
            PyList_SetSlice(w->entries, 0, PY_SSIZE_T_MAX, NULL);
        }
        return -1;
    }
    return index;
}

static PyObject *build_codes(const Py_ssize_t *ids, Py_ssize_t n, PyObject *entries, int which) {
    Py_UCS4 *buf = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Py_UCS4));
    if (!buf) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++)
        buf[i] = PyUnicode_READ_CHAR(PyList_GET_ITEM(entries, ids[i]), which);
    PyObject *s = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, n);
    PyMem_Free(buf);
    return s;
}

static PyObject *int_list(const Py_ssize_t *values, Py_ssize_t n) {
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromSsize_t(values[i]);
        if (!v) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

typedef struct {
    Py_ssize_t *data;
    Py_ssize_t len, cap;
} IntArray;

static int ints_push(IntArray *a, Py_ssize_t v) {
    if (a->len == a->cap) {
        Py_ssize_t cap = a->cap ? a->cap * 2 : 256;
        Py_ssize_t *data = PyMem_Realloc(a->data, (size_t)cap * sizeof(Py_ssize_t));
        if (!data) { PyErr_NoMemory(); return -1; }
        a->data = data;
        a->cap = cap;
    }
    a->data[a->len++] = v;
    return 0;
}

PyDoc_STRVAR(walk_doc,
"walk(start, max_depth, max_nodes)\n"
"-> (rsn, rpsa, csr, tags, parent_bfs, level_starts, class_values)\n\n"
"Breadth-first walk from the lxml element `start`; `max_depth`/`max_nodes` are -1 for no\n"
"limit.  Raises Unsupported when the tree holds something this walker does not read.");

static PyObject *Walker_walk(Walker *w, PyObject *args) {
    PyObject *start;
    Py_ssize_t max_depth, max_nodes;
    if (!PyArg_ParseTuple(args, "Onn", &start, &max_depth, &max_nodes)) return NULL;
    int is_element = PyObject_IsInstance(start, element_type);
    if (is_element < 0) return NULL;
    if (!is_element) {
        PyErr_SetString(PyExc_TypeError, "start must be an lxml element");
        return NULL;
    }
    xmlNode *root = ((LxmlElementLayout *)start)->c_node;
    if (!root || root->type != XML_ELEMENT_NODE) {
        PyErr_SetString(Unsupported, "start is not an element node");
        return NULL;
    }
    if (w->table.count > w->limit) { /* bounded memory: ids and hrefs can make many descriptors */
        table_free(&w->table);
        if (table_init(&w->table) < 0) return NULL;
        if (PyList_SetSlice(w->tags, 0, PY_SSIZE_T_MAX, NULL) < 0 ||
            PyList_SetSlice(w->entries, 0, PY_SSIZE_T_MAX, NULL) < 0)
            return NULL;
    }

    PyObject *result = NULL, *tags = NULL, *class_values = NULL;
    IntArray ids = {0}, parents = {0}, starts = {0};
    Level level = {0}, next = {0};
    StrTable classes = {0};
    Py_ssize_t n = 0;

    if (table_init(&classes) < 0) goto done;
    tags = PyList_New(0);
    class_values = PyList_New(0);
    if (!tags || !class_values) goto done;
    if (level_push(&level, root, -1) < 0) goto done;

    Py_ssize_t depth = 0;
    int full = 0;
    while (level.len && !full) {
        Py_ssize_t level_start = n;
        next.len = 0;
        int descend = max_depth < 0 || depth < max_depth;
        for (Py_ssize_t k = 0; k < level.len; k++) {
            xmlNode *node = level.node[k];
            if (node->type != XML_ELEMENT_NODE || skipped_tag(w, node)) continue;
            if (n == max_nodes) { full = 1; break; }
            Py_ssize_t index = descriptor_of(w, node, &classes, class_values);
            if (index == -2) {
                PyErr_SetString(Unsupported, "an attribute value holds entity references");
                goto done;
            }
            if (index < 0) goto done;
            if (descend) {
                Py_ssize_t before = next.len;
                for (xmlNode *c = node->children; c; c = c->next) {
                    if (!is_lxml_child(c)) continue;
                    if (level_push(&next, c, n) < 0) goto done;
                    /* read at the next level: start loading them now (a node's first child
                       and attribute are memory of their own; prefetching NULL is harmless) */
                    __builtin_prefetch(c->children);
                    __builtin_prefetch(c->properties);
                }
                /* with a node budget, children past it would only be cut: stop collecting */
                if (next.len > before && max_nodes >= 0 && next.len >= max_nodes - n) descend = 0;
            }
            if (ints_push(&ids, index) < 0 || ints_push(&parents, level.parent[k]) < 0) goto done;
            if (PyList_Append(tags, PyList_GET_ITEM(w->tags, index)) < 0) goto done;
            n++;
        }
        if (n > level_start && ints_push(&starts, level_start) < 0) goto done;
        Level swap = level;
        level = next;
        next = swap;
        depth++;
    }

    {
        PyObject *rsn = build_codes(ids.data, n, w->entries, 0);
        PyObject *rpsa = rsn ? build_codes(ids.data, n, w->entries, 1) : NULL;
        PyObject *csr = rpsa ? build_codes(ids.data, n, w->entries, 2) : NULL;
        PyObject *parent_list = csr ? int_list(parents.data, n) : NULL;
        PyObject *start_list = parent_list ? int_list(starts.data, starts.len) : NULL;
        if (start_list)
            result = PyTuple_Pack(7, rsn, rpsa, csr, tags, parent_list, start_list, class_values);
        Py_XDECREF(rsn);
        Py_XDECREF(rpsa);
        Py_XDECREF(csr);
        Py_XDECREF(parent_list);
        Py_XDECREF(start_list);
    }

done:
    PyMem_Free(ids.data);
    PyMem_Free(parents.data);
    PyMem_Free(starts.data);
    level_free(&level);
    level_free(&next);
    table_free(&classes);
    Py_XDECREF(tags);
    Py_XDECREF(class_values);
    return result;
}

static PyObject *Walker_normalise(PyObject *self, PyObject *arg) {
    Py_ssize_t n;
    const char *v = PyUnicode_AsUTF8AndSize(arg, &n);
    if (!v) return NULL;
    Buffer b = {0};
    if (add_normalised(&b, v, (size_t)n) < 0) { PyMem_Free(b.data); return NULL; }
    PyObject *s = PyUnicode_DecodeUTF8(b.data, (Py_ssize_t)strlen(b.data), "strict");
    PyMem_Free(b.data);
    return s;
}

static char **copy_strings(PyObject *seq, Py_ssize_t *n) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of str");
    if (!fast) return NULL;
    *n = PySequence_Fast_GET_SIZE(fast);
    char **out = PyMem_Calloc((size_t)(*n ? *n : 1), sizeof(char *));
    if (!out) { Py_DECREF(fast); PyErr_NoMemory(); return NULL; }
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        Py_ssize_t len;
        const char *s = PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, &len) : NULL;
        if (!s || len == 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "expected non-empty str");
            goto fail;
        }
        out[i] = PyMem_Malloc((size_t)len + 1);
        if (!out[i]) { PyErr_NoMemory(); goto fail; }
        memcpy(out[i], s, (size_t)len + 1);
    }
    Py_DECREF(fast);
    return out;
fail:
    for (Py_ssize_t i = 0; i < *n; i++) PyMem_Free(out[i]);
    PyMem_Free(out);
    Py_DECREF(fast);
    return NULL;
}

static void free_strings(char **strings, Py_ssize_t n) {
    if (!strings) return;
    for (Py_ssize_t i = 0; i < n; i++) PyMem_Free(strings[i]);
    PyMem_Free(strings);
}

/* The optional arguments that let the walker compute codes itself: all given, or none. */
static int init_native(Walker *w, PyObject *tags, PyObject *names, PyObject *structural) {
    if (tags == Py_None && names == Py_None && structural == Py_None) return 0;
    Py_ssize_t n_tags = PyObject_Length(tags), n_names = PyObject_Length(names);
    if (n_tags < 0 || n_names < 0) return -1;
    if (n_tags != n_names) {
        PyErr_SetString(PyExc_ValueError, "rpsa_tags and rpsa_names differ in length");
        return -1;
    }
    w->rpsa_tags = copy_strings(tags, &w->n_rpsa);
    if (!w->rpsa_tags) return -1;
    w->rpsa_names = copy_strings(names, &n_names);
    if (!w->rpsa_names) return -1;
    w->structural = copy_strings(structural, &w->n_structural);
    if (!w->structural) return -1;
    w->native = 1;
    return 0;
}

static int Walker_init(Walker *w, PyObject *args, PyObject *kwds) {
    static char *keywords[] = {"skip_tags", "value_names", "resolve", "limit", "rpsa_tags",
                               "rpsa_names", "structural", NULL};
    PyObject *skip, *names, *resolve, *rpsa_tags = Py_None, *rpsa_names = Py_None,
                                       *structural = Py_None;
    Py_ssize_t limit = 100000;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|nOOO", keywords, &skip, &names, &resolve,
                                     &limit, &rpsa_tags, &rpsa_names, &structural))
        return -1;
    if (!PyCallable_Check(resolve)) {
        PyErr_SetString(PyExc_TypeError, "resolve must be callable");
        return -1;
    }
    if (w->tags) {
        PyErr_SetString(PyExc_RuntimeError, "Walker is initialised once");
        return -1;
    }
    w->skip = copy_strings(skip, &w->n_skip);
    if (!w->skip) return -1;
    if (names != Py_None && !(w->names = copy_strings(names, &w->n_names))) return -1;
    if (init_native(w, rpsa_tags, rpsa_names, structural) < 0) return -1;
    w->resolve = Py_NewRef(resolve);
    w->limit = limit;
    w->tags = PyList_New(0);
    w->entries = PyList_New(0);
    if (!w->tags || !w->entries || table_init(&w->table) < 0) return -1;
    return 0;
}

static void Walker_dealloc(Walker *w) {
    PyObject_GC_UnTrack(w);
    free_strings(w->skip, w->n_skip);
    free_strings(w->names, w->n_names);
    free_strings(w->rpsa_tags, w->n_rpsa);
    free_strings(w->rpsa_names, w->n_rpsa);
    free_strings(w->structural, w->n_structural);
    table_free(&w->table);
    PyMem_Free(w->sig.data);
    PyMem_Free(w->value.data);
    Py_XDECREF(w->resolve);
    Py_XDECREF(w->tags);
    Py_XDECREF(w->entries);
    Py_TYPE(w)->tp_free((PyObject *)w);
}

static int Walker_traverse(Walker *w, visitproc visit, void *arg) {
    Py_VISIT(w->resolve);
    Py_VISIT(w->tags);
    Py_VISIT(w->entries);
    return 0;
}

static int Walker_clear(Walker *w) {
    Py_CLEAR(w->resolve);
    Py_CLEAR(w->tags);
    Py_CLEAR(w->entries);
    return 0;
}

static PyObject *Walker_size(Walker *w, PyObject *unused) { return PyLong_FromSsize_t(w->table.count); }

static PyMethodDef walker_methods[] = {
    {"walk", (PyCFunction)Walker_walk, METH_VARARGS, walk_doc},
    {"size", (PyCFunction)Walker_size, METH_NOARGS, "Descriptors held now."},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(walker_doc,
"Walker(skip_tags, value_names, resolve, limit=100000, rpsa_tags=None, rpsa_names=None,\n"
"       structural=None)\n\n"
"Holds one summary option set: `skip_tags` (tag names whose subtrees are left out),\n"
"`value_names` (attributes whose normalised values shape labels; None: every raw value),\n"
"`resolve(tag, ((name, value or None), ...))` giving a node's 3-character label codes.\n"
"Descriptors are remembered across pages (at most `limit`, then the memory starts afresh),\n"
"so on a crawl of one site `resolve` is rarely called.  With `rpsa_tags`/`rpsa_names` (the\n"
"RPSA (tag, attribute) pairs, lower-case) and `structural` (the attributes whose values CSR\n"
"labels keep), the codes of ASCII descriptors are computed here as summary.py does.");

static PyTypeObject WalkerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pagesim_scrapy.core._walk.Walker",
    .tp_basicsize = sizeof(Walker),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = walker_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Walker_init,
    .tp_dealloc = (destructor)Walker_dealloc,
    .tp_traverse = (traverseproc)Walker_traverse,
    .tp_clear = (inquiry)Walker_clear,
    .tp_methods = walker_methods,
};

/* One string for a page's features (what site.py's _pack makes, in the same order): the
   start label (the one 1-character feature, NUL without one), then the other features in the
   order the iterable gives them.  Why in C: a kept page is packed on every page of a crawl,
   and the Python loop over its few hundred features cost more than the walk's own share. */
static PyObject *pack_features(PyObject *self, PyObject *features) {
    PyObject *seq = PySequence_Fast(features, "features must be iterable");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *start = NULL;
    Py_ssize_t length = 1;
    Py_UCS4 maxchar = 0x7f;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = items[i];
        if (!PyUnicode_Check(item)) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_TypeError, "features must be strings");
            return NULL;
        }
        if (PyUnicode_GET_LENGTH(item) == 1) {
            start = item; /* the last one wins, as in the Python loop */
            continue;
        }
        length += PyUnicode_GET_LENGTH(item);
        if (PyUnicode_MAX_CHAR_VALUE(item) > maxchar) maxchar = PyUnicode_MAX_CHAR_VALUE(item);
    }
    if (start && PyUnicode_MAX_CHAR_VALUE(start) > maxchar) maxchar = PyUnicode_MAX_CHAR_VALUE(start);
    PyObject *out = PyUnicode_New(length, maxchar);
    if (!out) {
        Py_DECREF(seq);
        return NULL;
    }
    int kind = PyUnicode_KIND(out);
    void *data = PyUnicode_DATA(out);
    PyUnicode_WRITE(kind, data, 0, start ? PyUnicode_READ_CHAR(start, 0) : 0);
    Py_ssize_t at = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t size = PyUnicode_GET_LENGTH(items[i]);
        if (size == 1) continue;
        if (PyUnicode_CopyCharacters(out, at, items[i], 0, size) < 0) {
            Py_DECREF(seq);
            Py_DECREF(out);
            return NULL;
        }
        at += size;
    }
    Py_DECREF(seq);
    return out;
}

/* ---- the feature strings, made once ------------------------------------------------- */

/*
 * The 2-character feature strings made so far, by their two codes (key: (a << 32 | b) + 1, 0
 * an empty slot), at most PAIR_CACHE_MAX of them (then all forgotten at once).  Why: every page
 * of a site holds mostly the pairs the pages before it held; made once, a pair is not allocated
 * and hashed again on every page, and the site model's counts find it by identity.  The
 * strings are the ones made without the cache (equal, with the same hash), so every set and
 * dict built from them is the same, iteration order included.
 */
#define PAIR_CACHE_MAX 65536
typedef struct {
    uint64_t key;
    PyObject *text;
} PairSlot;
static PairSlot *pair_slots = NULL; /* 2 * PAIR_CACHE_MAX slots */
static size_t pair_count = 0;

static size_t pair_slot_of(uint64_t key) {
    const size_t mask = 2 * PAIR_CACHE_MAX - 1;
    size_t slot = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
    while (pair_slots[slot].key && pair_slots[slot].key != key) slot = (slot + 1) & mask;
    return slot;
}

static void pair_cache_clear(void) {
    for (size_t i = 0; i < 2 * PAIR_CACHE_MAX; i++) {
        Py_CLEAR(pair_slots[i].text);
        pair_slots[i].key = 0;
    }
    pair_count = 0;
}

/* The string of the pair (a, b): a new reference, NULL on error. */
static PyObject *pair_text(Py_UCS4 a, Py_UCS4 b) {
    if (!pair_slots) {
        pair_slots = PyMem_Calloc(2 * PAIR_CACHE_MAX, sizeof(PairSlot));
        if (!pair_slots) return PyErr_NoMemory();
    }
    uint64_t key = (((uint64_t)a << 32) | b) + 1;
    size_t slot = pair_slot_of(key);
    if (pair_slots[slot].key) return Py_NewRef(pair_slots[slot].text);
    Py_UCS4 pair[2] = {a, b};
    PyObject *text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, pair, 2);
    if (!text) return NULL;
    if (pair_count >= PAIR_CACHE_MAX) {
        pair_cache_clear();
        slot = pair_slot_of(key);
    }
    pair_slots[slot] = (PairSlot){key, Py_NewRef(text)};
    pair_count++;
    return text;
}

static PyObject *pair_cache_size(PyObject *self, PyObject *unused) {
    return PyLong_FromSize_t(pair_count);
}

/* The set of parent -> child pairs of a walk's codes: codes[parents[i]] + codes[i] for each
   node i past the first, as 2-character strings added in the order of the nodes (so the set is
   the one the Python loop builds, iteration order included); a frozenset when asked.  Why in C: a page of a few hundred
   nodes has a few dozen distinct pairs, and the Python loop made a string per node. */
static PyObject *node_pairs(PyObject *self, PyObject *args) {
    PyObject *codes, *parents;
    int frozen = 0;
    if (!PyArg_ParseTuple(args, "UO!|p:node_pairs", &codes, &PyList_Type, &parents, &frozen)) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(codes);
    if (PyList_GET_SIZE(parents) < n) n = PyList_GET_SIZE(parents);
    /* a brand new frozenset may be filled with PySet_Add before anyone sees it */
    PyObject *out = frozen ? PyFrozenSet_New(NULL) : PySet_New(NULL);
    if (!out || n < 2) return out;
    size_t size = 16;
    while (size < (size_t)n * 2) size <<= 1;
    uint64_t *seen = calloc(size, sizeof(uint64_t)); /* 0: empty (no code is NUL: keys are +1) */
    if (!seen) {
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    int kind = PyUnicode_KIND(codes);
    const void *data = PyUnicode_DATA(codes);
    for (Py_ssize_t i = 1; i < n; i++) {
        Py_ssize_t parent = PyLong_AsSsize_t(PyList_GET_ITEM(parents, i));
        if (parent < 0 || parent >= n) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_IndexError, "a parent index is out of range");
            goto fail;
        }
        Py_UCS4 pair[2] = {PyUnicode_READ(kind, data, parent), PyUnicode_READ(kind, data, i)};
        uint64_t key = (((uint64_t)pair[0] << 32) | pair[1]) + 1;
        size_t slot = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & (size - 1);
        while (seen[slot] && seen[slot] != key) slot = (slot + 1) & (size - 1);
        if (seen[slot]) continue;
        seen[slot] = key;
        PyObject *text = pair_text(pair[0], pair[1]);
        if (!text || PySet_Add(out, text) < 0) {
            Py_XDECREF(text);
            goto fail;
        }
        Py_DECREF(text);
    }
    free(seen);
    return out;
fail:
    free(seen);
    Py_DECREF(out);
    return NULL;
}

/* A packed page's features (site.py's _unpack): the 2-character pairs after the start label,
   then the start label unless it is NUL, added to a set in that order and made a frozenset
   of it, so the result is the one the Python code builds, iteration order included.  Why in
   C: the site re-estimates unpack their kept pages to score them, several per page. */
static PyObject *unpack_features(PyObject *self, PyObject *packed) {
    if (!PyUnicode_Check(packed)) {
        PyErr_SetString(PyExc_TypeError, "a packed page is a str");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(packed);
    PyObject *features = PySet_New(NULL);
    if (!features) return NULL;
    for (Py_ssize_t i = 1; i < n; i += 2) {
        PyObject *pair = i + 2 <= n ? pair_text(PyUnicode_READ_CHAR(packed, i),
                                                PyUnicode_READ_CHAR(packed, i + 1))
                                    : PyUnicode_Substring(packed, i, n);
        if (!pair || PySet_Add(features, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(features);
            return NULL;
        }
        Py_DECREF(pair);
    }
    if (n > 0 && PyUnicode_READ_CHAR(packed, 0) != 0) {
        PyObject *start = PyUnicode_Substring(packed, 0, 1);
        if (!start || PySet_Add(features, start) < 0) {
            Py_XDECREF(start);
            Py_DECREF(features);
            return NULL;
        }
        Py_DECREF(start);
    }
    PyObject *out = PyFrozenSet_New(features);
    Py_DECREF(features);
    return out;
}

static int count_weight(PyObject *table, Py_ssize_t count, double *weight); /* at the end */
static void add_to_groups(double *sums, uint64_t bits, Py_ssize_t groups, double weight); /* at the end */

/* One feature's weight and the template bits it adds to ``sums`` (shared_weights' step). */
static int add_feature(PyObject *feature, PyObject *members, PyObject *df, PyObject *table,
                       Py_ssize_t count, double *total, double *sums) {
    Py_ssize_t k = 0;
    PyObject *n = PyDict_GetItemWithError(df, feature);
    if (n) k = PyLong_AsSsize_t(n);
    if (PyErr_Occurred()) return -1;
    double weight;
    if (count_weight(table, k, &weight) < 0) return -1;
    *total += weight;
    PyObject *mask = PyDict_GetItemWithError(members, feature);
    if (!mask) return PyErr_Occurred() ? -1 : 0;
    unsigned long long bits = PyLong_AsUnsignedLongLong(mask);
    if (bits == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    add_to_groups(sums, bits, count, weight);
    return 0;
}

/* (total, [sums[0], ..., sums[count - 1]]): what shared_weights and packed_weights return. */
static PyObject *weights_result(double total, const double *sums, Py_ssize_t count) {
    PyObject *shared = PyList_New(count);
    if (!shared) return NULL;
    for (Py_ssize_t t = 0; t < count; t++) {
        PyObject *value = PyFloat_FromDouble(sums[t]);
        if (!value) {
            Py_DECREF(shared);
            return NULL;
        }
        PyList_SET_ITEM(shared, t, value);
    }
    return Py_BuildValue("(dN)", total, shared);
}

/* A page's summed weight and the weight it shares with each template, in one pass over its
   features: weight = table[df.get(feature, 0)], and members[feature] has bit t set when
   template t holds the feature.  The weights are on a grid on which every sum is exact
   (site.py's WEIGHT_STEPS), so the order of the additions does not change a sum.  Why in C:
   a page was intersected with every template and each intersection summed in Python. */
static PyObject *shared_weights(PyObject *self, PyObject *args) {
    PyObject *features, *members, *df, *table;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "OO!O!O!n:shared_weights", &features, &PyDict_Type, &members,
                          &PyDict_Type, &df, &PyList_Type, &table, &count))
        return NULL;
    if (count < 0 || count > 64) {
        PyErr_SetString(PyExc_ValueError, "between 0 and 64 templates");
        return NULL;
    }
    double sums[64] = {0.0};
    double total = 0.0;
    PyObject *it = PyObject_GetIter(features), *feature;
    if (!it) return NULL;
    while ((feature = PyIter_Next(it))) {
        int failed = add_feature(feature, members, df, table, count, &total, sums);
        Py_DECREF(feature);
        if (failed) break;
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) return NULL;
    return weights_result(total, sums, count);
}

/* shared_weights of a packed page (site.py's _pack), read straight from its string: the
   features unpack_features would give, each once, so the same sums (exact in any order).
   Why in C: a site's re-estimate scores its kept pages again, and unpacking each into a
   frozenset first cost as much as the scoring. */
static PyObject *packed_weights(PyObject *self, PyObject *args) {
    PyObject *packed, *members, *df, *table;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "UO!O!O!n:packed_weights", &packed, &PyDict_Type, &members,
                          &PyDict_Type, &df, &PyList_Type, &table, &count))
        return NULL;
    if (count < 0 || count > 64) {
        PyErr_SetString(PyExc_ValueError, "between 0 and 64 templates");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(packed);
    if (n % 2 != 1) {
        PyErr_SetString(PyExc_ValueError, "not a packed page");
        return NULL;
    }
    double sums[64] = {0.0};
    double total = 0.0;
    for (Py_ssize_t i = 0; i < n; i += 2) {
        if (i == 0 && PyUnicode_READ_CHAR(packed, 0) == 0) continue;
        PyObject *feature = PyUnicode_Substring(packed, i == 0 ? 0 : i - 1, i == 0 ? 1 : i + 1);
        if (!feature) return NULL;
        int failed = add_feature(feature, members, df, table, count, &total, sums);
        Py_DECREF(feature);
        if (failed) return NULL;
    }
    return weights_result(total, sums, count);
}

/* site.jaccard_of_totals of a page (its shared weight with each template and its total)
   and each template's total, as a list: the same float operations in the same order.  Why
   in C: a page is scored against every template on every decision, and a Python call per
   template cost more than the compiled pass that summed the weights. */
static PyObject *jaccard_list(double total, const double *sums, PyObject *totals); /* at the end */

static PyObject *jaccards(PyObject *self, PyObject *args) {
    PyObject *shared, *totals;
    double total;
    if (!PyArg_ParseTuple(args, "O!dO!:jaccards", &PyList_Type, &shared, &total, &PyList_Type, &totals))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(shared);
    if (PyList_GET_SIZE(totals) != n) {
        PyErr_SetString(PyExc_ValueError, "as many totals as shared weights");
        return NULL;
    }
    double *sums = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!sums) return PyErr_NoMemory();
    PyObject *out = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        sums[i] = PyFloat_AsDouble(PyList_GET_ITEM(shared, i));
        if (sums[i] == -1.0 && PyErr_Occurred()) goto done;
    }
    out = jaccard_list(total, sums, totals);
done:
    PyMem_Free(sums);
    return out;
}

/* Reads an int64 buffer's values, checking each is within [0, limit). */
static int ids_within(const Py_buffer *b, Py_ssize_t limit) {
    const int64_t *v = (const int64_t *)b->buf;
    for (Py_ssize_t i = 0; i < b->len / 8; i++) {
        if (v[i] < 0 || v[i] >= limit) {
            PyErr_SetString(PyExc_IndexError, "a number past the pool");
            return -1;
        }
    }
    return 0;
}

/* What each page of a pool shares with every page of it: out[i * n + j] is the summed weight
   of the features pages i and j both hold (``flat``: every page's feature numbers, page p's
   at starts[p] .. starts[p] + sizes[p], each number once per page; ``weights``: by number).
   The weights are on the grid on which every sum is exact (site.py's WEIGHT_STEPS), so these
   are the sums of the pool's one-page-at-a-time gather, in any order.  Why in C: the crawl's
   neighbour fill compares every sampled kept page with every other one at each build, and a
   gather over the whole pool per page cost most of the build. */
static PyObject *pool_shared(PyObject *self, PyObject *args) {
    Py_buffer flat, starts, sizes, weights;
    if (!PyArg_ParseTuple(args, "y*y*y*y*:pool_shared", &flat, &starts, &sizes, &weights))
        return NULL;
    PyObject *out = NULL;
    Py_ssize_t *head = NULL, *fill = NULL, *post = NULL;
    Py_ssize_t n = sizes.len / 8, count = flat.len / 8, features = weights.len / 8;
    const int64_t *f = (const int64_t *)flat.buf, *st = (const int64_t *)starts.buf;
    const int64_t *sz = (const int64_t *)sizes.buf;
    const double *w = (const double *)weights.buf;
    if (starts.len != sizes.len || flat.len % 8 || sizes.len % 8 || weights.len % 8) {
        PyErr_SetString(PyExc_ValueError, "int64 numbers, starts and sizes; float64 weights");
        goto done;
    }
    if (ids_within(&flat, features) < 0) goto done;
    for (Py_ssize_t p = 0; p < n; p++) {
        if (st[p] < 0 || sz[p] < 0 || st[p] + sz[p] > count) {
            PyErr_SetString(PyExc_IndexError, "a page past the numbers");
            goto done;
        }
    }
    /* each feature's pages (an inverted index over the pool) */
    head = PyMem_Calloc((size_t)features + 1, sizeof(Py_ssize_t));
    fill = PyMem_Calloc((size_t)features + 1, sizeof(Py_ssize_t));
    post = PyMem_Malloc(((size_t)count + 1) * sizeof(Py_ssize_t));
    if (!head || !fill || !post) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t p = 0; p < n; p++)
        for (int64_t k = st[p]; k < st[p] + sz[p]; k++) head[f[k] + 1]++;
    for (Py_ssize_t k = 0; k < features; k++) head[k + 1] += head[k];
    for (Py_ssize_t p = 0; p < n; p++)
        for (int64_t k = st[p]; k < st[p] + sz[p]; k++) post[head[f[k]] + fill[f[k]]++] = p;
    out = PyBytes_FromStringAndSize(NULL, n * n * (Py_ssize_t)sizeof(double));
    if (!out) goto done;
    double *acc = (double *)PyBytes_AS_STRING(out);
    memset(acc, 0, (size_t)n * (size_t)n * sizeof(double));
    for (Py_ssize_t i = 0; i < n; i++) {
        double *row = acc + i * n;
        for (int64_t k = st[i]; k < st[i] + sz[i]; k++) {
            double weight = w[f[k]];
            if (weight == 0.0) continue; /* adds nothing to a sum of weights >= 0 */
            for (Py_ssize_t q = head[f[k]]; q < head[f[k] + 1]; q++) row[post[q]] += weight;
        }
    }
done:
    PyMem_Free(head);
    PyMem_Free(fill);
    PyMem_Free(post);
    PyBuffer_Release(&flat);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&sizes);
    PyBuffer_Release(&weights);
    return out;
}

/* Each feature's weight, table[df.get(feature, 0)], as float64 bytes in the features' order
   (clusterfill's _weights_of).  Why in C: the crawl fill weighs every distinct feature of
   its sample at each build, and three Python-level calls per feature cost most of it. */
static PyObject *weights_of(PyObject *self, PyObject *args) {
    PyObject *features, *df, *table;
    if (!PyArg_ParseTuple(args, "OO!O!:weights_of", &features, &PyDict_Type, &df, &PyList_Type, &table))
        return NULL;
    PyObject *seq = PySequence_Fast(features, "features must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), size = PyList_GET_SIZE(table);
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(double));
    if (!out) {
        Py_DECREF(seq);
        return NULL;
    }
    double *weights = (double *)PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t k = 0;
        PyObject *count = PyDict_GetItemWithError(df, PySequence_Fast_GET_ITEM(seq, i));
        if (count) k = PyLong_AsSsize_t(count);
        if (PyErr_Occurred()) goto failed;
        if (k < 0 || k >= size) {
            PyErr_SetString(PyExc_IndexError, "a count past the weight table");
            goto failed;
        }
        weights[i] = PyFloat_AsDouble(PyList_GET_ITEM(table, k));
        if (weights[i] == -1.0 && PyErr_Occurred()) goto failed;
    }
    Py_DECREF(seq);
    return out;
failed:
    Py_DECREF(seq);
    Py_DECREF(out);
    return NULL;
}

/* site._weight_table's list, entry by entry the same float operations in the same order
   (libm's log, which math.log calls; round half to even as Python's round): a feature's
   weight for df = 0 .. size - 1 on a site of ``pages`` pages, ramped up to the full IDF on
   ``full`` pages, on a grid of ``steps`` per unit.  Why in C: a site rebuilds its table on
   every page while small and at every 1 % of growth after, and the Python loop (a log and a
   round per entry) was most of what a long crawl's re-estimates and scorings spent on it. */
static PyObject *weight_table(PyObject *self, PyObject *args) {
    Py_ssize_t pages, size, full, grow;
    long long steps;
    if (!PyArg_ParseTuple(args, "nnnL:weight_table", &pages, &size, &full, &steps)) return NULL;
    if (size < 0 || full < 1 || steps <= 0) {
        PyErr_SetString(PyExc_ValueError, "size >= 0, full >= 1 and steps > 0");
        return NULL;
    }
    grow = full < size ? full : size;
    PyObject *out = PyList_New(size);
    if (!out) return NULL;
    double num = (double)(pages + 1), step = (double)steps;
    for (Py_ssize_t df = 0; df < size; df++) {
        double w = 0.0;
        if (df >= 2) {
            w = log(num / ((double)df + 0.5));
            if (df < grow) w = (double)(df - 1) / (double)(full - 1) * w;
        }
        double value = 0.0;
        if (w > 0.0) {
            double x = w * step, r = round(x);
            if (fabs(x - r) == 0.5) r = 2.0 * round(x / 2.0);
            value = r / step;
        }
        PyObject *item = PyFloat_FromDouble(value);
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, df, item);
    }
    return out;
}

/* ---- a site's kept-page feature counts ------------------------------------------------- */

/* One feature of a site (keptscores.py's SiteCounts): its key (feature_key), its count in the
   site model's df, the templates holding it (once ``known``), its place among the
   features some label's templates all share, plus one (0: none; below 2**29, see
   shared_keys), and whether it is in the templates' union (stamped by union_find_slots). */
typedef struct {
    uint64_t key;
    uint64_t members;
    int32_t count;
    uint32_t shared : 30;
    uint32_t in_union : 1;
    uint32_t known : 1;
} CountSlot;

/* A shared feature's key and its place (plus one) among the shared features. */
typedef struct {
    uint64_t key;
    uint32_t place;
} SharedSlot;

/* An open-addressing table of a site's features keyed by their codes: a kept page is counted
   and scored again straight from its packed string, with no string object made per feature.
   Why in C: every feature of every re-scored page was a substring, two dictionary look-ups
   and a float read in packed_weights, most of a re-estimate's cost. */
typedef struct {
    PyObject_HEAD
    CountSlot *slots;
    Py_ssize_t capacity, used; /* capacity: a power of two, or 0 */
    PyObject *shared_table;    /* bytes: the shared features by key (see shared_keys) */
    const SharedSlot *shared;  /* its slots (a power of two) */
    Py_ssize_t shared_capacity, shared_count;
    PyObject *members;         /* the template members the ``known`` bits were read from */
    int members_in_union;      /* every feature of ``members`` is in the union (set_union) */
    /* The templates' union (set_union), ordered by its features' group bits: each feature's
       key and the index of its slot (valid while ``layout`` is ``union_layout``: the slots
       move when the table grows or is emptied); the distinct bits and where each one's
       features start. */
    uint64_t *union_keys;
    Py_ssize_t *union_slots;
    Py_ssize_t union_size;
    uint64_t layout, union_layout; /* layout: raised whenever the slots move */
    uint64_t *union_masks;
    Py_ssize_t *union_starts; /* union_masks' count plus one entries */
    Py_ssize_t union_mask_count;
    Py_ssize_t *shared_union; /* each shared feature's place in the union, or -1 */
    /* The union's counts in its order, kept in step with the slots' while ``union_counted``
       (every union feature's slot stamped): summed with no slot read; each union feature's
       place found by its key in a small open-addressing index. */
    int32_t *union_counts;
    int union_counted;
    uint64_t *union_index_keys;
    Py_ssize_t *union_index_at;
    Py_ssize_t union_index_capacity;
} KeptCounts;


/* A feature's key: its code, or its two codes (the parent's in the high half); 0 when the
   string is not a feature (empty, longer than two, or holding NUL, which no code is). */
static uint64_t feature_key(PyObject *feature) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(feature);
    if (n < 1 || n > 2) return 0;
    uint64_t first = PyUnicode_READ_CHAR(feature, 0);
    if (n == 1) return first;
    uint64_t second = PyUnicode_READ_CHAR(feature, 1);
    return first && second ? first << 32 | second : 0;
}

static uint64_t packed_key(PyObject *packed, Py_ssize_t i) {
    if (i == 0) return PyUnicode_READ_CHAR(packed, 0);
    return ((uint64_t)PyUnicode_READ_CHAR(packed, i - 1) << 32) | PyUnicode_READ_CHAR(packed, i);
}

static PyObject *key_feature(uint64_t key) {
    Py_UCS4 chars[2] = {(Py_UCS4)(key >> 32), (Py_UCS4)(key & 0xFFFFFFFFu)};
    return key >> 32 ? PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, chars, 2)
                     : PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, chars + 1, 1);
}

static size_t key_hash(uint64_t key, Py_ssize_t capacity) {
    uint64_t hash = key * 0x9E3779B97F4A7C15ull;
    return (size_t)(hash ^ (hash >> 29)) & ((size_t)capacity - 1);
}

static Py_ssize_t slot_of(const KeptCounts *t, uint64_t key) {
    size_t mask = (size_t)t->capacity - 1, at = key_hash(key, t->capacity);
    while (t->slots[at].key && t->slots[at].key != key) at = (at + 1) & mask;
    return (Py_ssize_t)at;
}

static uint32_t shared_place(const KeptCounts *t, uint64_t key) {
    size_t mask = (size_t)t->shared_capacity - 1, at = key_hash(key, t->shared_capacity);
    while (t->shared[at].key && t->shared[at].key != key) at = (at + 1) & mask;
    return t->shared[at].place;
}


/* Fetches the slot of the feature ``ahead`` places on into the cache (a hint, never a read):
   a site's table is larger than the cache, and a page's features land anywhere in it. */
static void prefetch_ahead(const KeptCounts *t, PyObject *packed, Py_ssize_t i, Py_ssize_t n) {
    Py_ssize_t ahead = i + 16;
    if (ahead < n && t->capacity) __builtin_prefetch(&t->slots[key_hash(packed_key(packed, ahead), t->capacity)]);
}

static int counts_grow(KeptCounts *t) {
    Py_ssize_t capacity = t->capacity ? t->capacity * 2 : 256;
    CountSlot *old = t->slots, *slots = PyMem_Calloc((size_t)capacity, sizeof(CountSlot));
    if (!slots) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t old_capacity = t->capacity;
    t->layout++;
    t->slots = slots;
    t->capacity = capacity;
    for (Py_ssize_t i = 0; i < old_capacity; i++)
        if (old[i].key) t->slots[slot_of(t, old[i].key)] = old[i];
    PyMem_Free(old);
    return 0;
}

/* A feature's count in ``df`` (0 when absent), as the slot holds it. */
static int df_count(PyObject *df, uint64_t key, int32_t *count) {
    PyObject *feature = key_feature(key);
    if (!feature) return -1;
    PyObject *n = PyDict_GetItemWithError(df, feature);
    long long value = n ? PyLong_AsLongLong(n) : 0;
    Py_DECREF(feature);
    if (PyErr_Occurred()) return -1;
    if (value < 0 || value > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "a feature count out of range");
        return -1;
    }
    *count = (int32_t)value;
    return 0;
}

/* The slot of ``key``; made when new, its count ``count`` (or from ``df`` when negative). */
static CountSlot *counts_find(KeptCounts *t, uint64_t key, PyObject *df, int32_t count, int *made) {
    if ((t->used + 1) * 3 > t->capacity * 2 && counts_grow(t) < 0) return NULL; /* at most 2/3 used */
    CountSlot *slot = &t->slots[slot_of(t, key)];
    *made = !slot->key;
    if (slot->key) return slot;
    if (count < 0 && df_count(df, key, &count) < 0) return NULL;
    slot->key = key;
    slot->count = count;
    slot->members = 0;
    slot->shared = shared_place(t, key);
    slot->known = 0;
    slot->in_union = 0;
    t->used++;
    return slot;
}

/* shared_keys(shared) -> the features some label's templates all share (in bit order) as
   KeptCounts reads them: an open-addressing table of SharedSlot in bytes, made once for every
   site of a classifier. */
static PyObject *shared_keys(PyObject *self, PyObject *shared) {
    if (!PyTuple_Check(shared)) {
        PyErr_SetString(PyExc_TypeError, "shared_keys takes a tuple");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(shared), capacity = 4;
    if (n >= (1 << 29)) {
        PyErr_SetString(PyExc_ValueError, "too many shared features");
        return NULL;
    }
    while (capacity < 2 * n) capacity *= 2;
    PyObject *out = PyBytes_FromStringAndSize(NULL, capacity * (Py_ssize_t)sizeof(SharedSlot));
    if (!out) return NULL;
    SharedSlot *slots = (SharedSlot *)PyBytes_AS_STRING(out);
    memset(slots, 0, (size_t)capacity * sizeof(SharedSlot));
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *feature = PyTuple_GET_ITEM(shared, i);
        uint64_t key = PyUnicode_Check(feature) ? feature_key(feature) : 0;
        if (!key) {
            Py_DECREF(out);
            PyErr_SetString(PyExc_ValueError, "a shared feature that is not one or two codes");
            return NULL;
        }
        size_t at = key_hash(key, capacity);
        while (slots[at].key && slots[at].key != key) at = (at + 1) & ((size_t)capacity - 1);
        slots[at].key = key;
        slots[at].place = (uint32_t)(i + 1);
    }
    return out;
}

/* KeptCounts(table, count): ``table`` shared_keys' bytes of ``count`` shared features. */
static int KeptCounts_init(KeptCounts *t, PyObject *args, PyObject *kwds) {
    PyObject *table;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "O!n:KeptCounts", &PyBytes_Type, &table, &count)) return -1;
    Py_ssize_t capacity = PyBytes_GET_SIZE(table) / (Py_ssize_t)sizeof(SharedSlot);
    if (capacity < 4 || capacity * (Py_ssize_t)sizeof(SharedSlot) != PyBytes_GET_SIZE(table) ||
        (capacity & (capacity - 1)) || count < 0 || count >= (1 << 29) || 2 * count > capacity) {
        PyErr_SetString(PyExc_ValueError, "not a table of shared_keys");
        return -1;
    }
    const SharedSlot *slots = (const SharedSlot *)PyBytes_AS_STRING(table);
    for (Py_ssize_t i = 0; i < capacity; i++) {
        if (slots[i].place > (uint64_t)count || !slots[i].key != !slots[i].place) {
            PyErr_SetString(PyExc_ValueError, "not a table of shared_keys");
            return -1;
        }
    }
    Py_XSETREF(t->shared_table, Py_NewRef(table));
    t->shared = slots;
    t->shared_capacity = capacity;
    t->shared_count = count;
    return 0;
}

static void union_free(KeptCounts *t); /* defined at the end */
static int members_in_union(const KeptCounts *t, PyObject *members); /* at the end */
static void union_raise(KeptCounts *t, const CountSlot *slot); /* at the end */
static void union_unstamp(KeptCounts *t);                        /* at the end */
static int union_index(KeptCounts *t);                           /* at the end */

static void KeptCounts_dealloc(KeptCounts *t) {
    PyObject_GC_UnTrack(t);
    Py_CLEAR(t->members);
    Py_CLEAR(t->shared_table);
    PyMem_Free(t->slots);
    union_free(t);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static int KeptCounts_traverse(KeptCounts *t, visitproc visit, void *arg) {
    Py_VISIT(t->members);
    return 0;
}

/* The shared table stays: its bytes hold no reference, and count() reads them. */
static int KeptCounts_clear_refs(KeptCounts *t) {
    Py_CLEAR(t->members);
    return 0;
}

static int check_ready(KeptCounts *t, PyObject *packed) {
    if (!t->shared) {
        PyErr_SetString(PyExc_ValueError, "KeptCounts not initialised");
        return -1;
    }
    if (PyUnicode_GET_LENGTH(packed) % 2 != 1) {
        PyErr_SetString(PyExc_ValueError, "not a packed page");
        return -1;
    }
    return 0;
}

/* The bits set in ``words`` uint64 words (lowest first) as a Python int. */
static PyObject *bits_int(uint64_t *bits, Py_ssize_t words) {
    unsigned char *bytes = (unsigned char *)bits; /* little-endian, as int.from_bytes reads */
    for (Py_ssize_t w = 0; w < words; w++) {
        uint64_t v = bits[w];
        for (int b = 0; b < 8; b++) bytes[w * 8 + b] = (unsigned char)(v >> (8 * b));
    }
    return _PyLong_FromByteArray(bytes, (size_t)words * 8, 1, 0);
}

/* count(packed, df, mode) -> the bits of the shared features the page holds: a page the site
   model has just counted, each of its features given a slot.  ``mode`` 0: a new slot's count
   from ``df``, no other touched (the caller reads them all again); 1: and every other slot's
   count raised by one, as df's were (the counts were in step before the page); 2: as 1, and
   the table holds every feature df holds, so a new one is on this page only (count 1). */
static PyObject *KeptCounts_count(KeptCounts *t, PyObject *args) {
    PyObject *packed, *df;
    int mode;
    if (!PyArg_ParseTuple(args, "UO!i:count", &packed, &PyDict_Type, &df, &mode)) return NULL;
    if (check_ready(t, packed) < 0) return NULL;
    Py_ssize_t words = t->shared_count / 64 + 1, n = PyUnicode_GET_LENGTH(packed);
    uint64_t *bits = PyMem_Calloc((size_t)words, sizeof(uint64_t));
    if (!bits) return PyErr_NoMemory();
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < n; i += 2) {
        uint64_t key = packed_key(packed, i);
        prefetch_ahead(t, packed, i, n);
        if (!key) continue;
        int made = 0;
        CountSlot *slot = counts_find(t, key, df, mode == 2 ? 1 : -1, &made);
        if (!slot) goto done;
        if (!made && mode > 0) {
            if (slot->count == INT32_MAX) {
                PyErr_SetString(PyExc_OverflowError, "a feature count out of range");
                goto done;
            }
            slot->count++;
            union_raise(t, slot);
        }
        if (slot->shared) bits[(slot->shared - 1) / 64] |= 1ull << ((slot->shared - 1) % 64);
    }
    result = bits_int(bits, words);
done:
    PyMem_Free(bits);
    return result;
}

/* recount(df) -> how many slots count more than nothing: every slot's count read again from
   ``df`` (after changes the table was not told of). */
static PyObject *KeptCounts_recount(KeptCounts *t, PyObject *df) {
    if (!PyDict_Check(df)) {
        PyErr_SetString(PyExc_TypeError, "recount takes a dict");
        return NULL;
    }
    Py_ssize_t counted = 0;
    for (Py_ssize_t i = 0; i < t->capacity; i++) {
        CountSlot *slot = &t->slots[i];
        if (!slot->key) continue;
        if (df_count(df, slot->key, &slot->count) < 0) return NULL;
        union_raise(t, slot);
        counted += slot->count > 0;
    }
    return PyLong_FromSsize_t(counted);
}

/* The templates holding a slot's feature (``members``: site.template_members), read once. */
static int slot_members(KeptCounts *t, CountSlot *slot, PyObject *members, uint64_t *out) {
    if (!slot->known && t->members_in_union && t->union_counted && !slot->in_union) {
        /* every union feature's slot is stamped, and members holds union features alone: a
           feature outside the union is no template's (no string made, no dictionary read) */
        slot->members = 0;
        slot->known = 1;
    }
    if (!slot->known) {
        PyObject *feature = key_feature(slot->key);
        if (!feature) return -1;
        PyObject *held = PyDict_GetItemWithError(members, feature);
        Py_DECREF(feature);
        unsigned long long value = held ? PyLong_AsUnsignedLongLong(held) : 0;
        if (PyErr_Occurred()) return -1;
        slot->members = value;
        slot->known = 1;
    }
    *out = slot->members;
    return 0;
}

static int kept_sums(KeptCounts *t, PyObject *packed, PyObject *members, PyObject *df, PyObject *table,
                     Py_ssize_t count, double *total, double *sums); /* defined at the end */

/* weights(packed, members, df, table, count) -> site.packed_weights of a kept page, its
   features' counts read from the slots (made from ``df`` where missing): the same weights, so
   the same sums (exact in any order on the weights' grid). */
static PyObject *KeptCounts_weights(KeptCounts *t, PyObject *args) {
    PyObject *packed, *members, *df, *table;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "UO!O!O!n:weights", &packed, &PyDict_Type, &members, &PyDict_Type,
                          &df, &PyList_Type, &table, &count))
        return NULL;
    if (check_ready(t, packed) < 0) return NULL;
    if (count < 0 || count > 64) {
        PyErr_SetString(PyExc_ValueError, "between 0 and 64 templates");
        return NULL;
    }
    double sums[64] = {0.0}, total = 0.0;
    if (kept_sums(t, packed, members, df, table, count, &total, sums) < 0) return NULL;
    return weights_result(total, sums, count);
}

static PyObject *KeptCounts_clear(KeptCounts *t, PyObject *unused) {
    PyMem_Free(t->slots);
    t->slots = NULL;
    t->capacity = t->used = 0;
    t->layout++;
    t->union_counted = 0;
    Py_RETURN_NONE;
}

/* refill(df) -> how many of df's features the table now holds: the table emptied, then every
   feature of ``df`` given a slot with its count (one pass over df, no string made). */
static PyObject *KeptCounts_refill(KeptCounts *t, PyObject *df) {
    if (!PyDict_Check(df)) {
        PyErr_SetString(PyExc_TypeError, "refill takes a dict");
        return NULL;
    }
    Py_DECREF(KeptCounts_clear(t, NULL));
    PyObject *feature, *value;
    Py_ssize_t at = 0, held = 0;
    while (PyDict_Next(df, &at, &feature, &value)) {
        uint64_t key = PyUnicode_Check(feature) ? feature_key(feature) : 0;
        if (!key) continue;
        long long count = PyLong_AsLongLong(value);
        if (count == -1 && PyErr_Occurred()) return NULL;
        if (count < 0 || count > INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "a feature count out of range");
            return NULL;
        }
        int made = 0;
        if (!counts_find(t, key, df, (int32_t)count, &made)) return NULL;
        held += made;
    }
    return PyLong_FromSsize_t(held);
}

static PyObject *KeptCounts_nbytes(KeptCounts *t, void *unused) {
    return PyLong_FromSsize_t(t->capacity * (Py_ssize_t)sizeof(CountSlot));
}

static Py_ssize_t KeptCounts_len(KeptCounts *t) { return t->used; }

static PyObject *KeptCounts_light(KeptCounts *t, PyObject *args); /* defined at the end */
static PyObject *KeptCounts_weights_many(KeptCounts *t, PyObject *args); /* defined at the end */
static PyObject *KeptCounts_set_union(KeptCounts *t, PyObject *args); /* defined at the end */
static PyObject *KeptCounts_union_weights(KeptCounts *t, PyObject *args); /* defined at the end */

static PyMethodDef kept_counts_methods[] = {
    {"count", (PyCFunction)KeptCounts_count, METH_VARARGS, "Count a page just kept; its shared-feature bits."},
    {"recount", (PyCFunction)KeptCounts_recount, METH_O, "Every count read again from df."},
    {"weights", (PyCFunction)KeptCounts_weights, METH_VARARGS, "site.packed_weights from the counts."},
    {"weights_many", (PyCFunction)KeptCounts_weights_many, METH_VARARGS, "Each page's site.jaccards against the templates, from the counts."},
    {"clear", (PyCFunction)KeptCounts_clear, METH_NOARGS, "Forget every feature."},
    {"refill", (PyCFunction)KeptCounts_refill, METH_O, "Every feature of df, counted as df counts it."},
    {"light", (PyCFunction)KeptCounts_light, METH_VARARGS, "The bits of the shared features weighing nothing."},
    {"set_union", (PyCFunction)KeptCounts_set_union, METH_VARARGS, "The templates' union and each feature's group bits."},
    {"union_weights", (PyCFunction)KeptCounts_union_weights, METH_VARARGS, "The union's weight in each group, from the counts."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef kept_counts_getset[] = {
    {"nbytes", (getter)KeptCounts_nbytes, NULL, "The slots' memory in bytes (the shared table is shared).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods kept_counts_sequence = {.sq_length = (lenfunc)KeptCounts_len};

static PyTypeObject KeptCountsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pagesim_scrapy.core._walk.KeptCounts",
    .tp_basicsize = sizeof(KeptCounts),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A site's feature counts keyed by their codes (keptscores.py's SiteCounts).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)KeptCounts_init,
    .tp_dealloc = (destructor)KeptCounts_dealloc,
    .tp_traverse = (traverseproc)KeptCounts_traverse,
    .tp_clear = (inquiry)KeptCounts_clear_refs,
    .tp_methods = kept_counts_methods,
    .tp_getset = kept_counts_getset,
    .tp_as_sequence = &kept_counts_sequence,
};

/* Registers KeptCounts in the module (PyInit__walk). */
static int add_kept_counts(PyObject *m) {
    if (PyType_Ready(&KeptCountsType) < 0) return -1;
    return PyModule_AddObjectRef(m, "KeptCounts", (PyObject *)&KeptCountsType);
}


/* light(df, table) -> the bits of the shared features that weigh nothing on the site
   (table[count] <= 0), each count the union's (see union_raise) or read from its slot (made
   from ``df`` where missing), as
   KeptScores numbers them.  Why in C: a young site finds its labels' cores on every page,
   and a dictionary read and a float per shared feature cost more than the anchors' sums. */
static int light_count(KeptCounts *t, const SharedSlot *shared, PyObject *df, int32_t *count); /* at the end */
static int union_find_slots(KeptCounts *t, PyObject *df);                              /* at the end */

static PyObject *KeptCounts_light(KeptCounts *t, PyObject *args) {
    PyObject *df, *table;
    if (!PyArg_ParseTuple(args, "O!O!:light", &PyDict_Type, &df, &PyList_Type, &table)) return NULL;
    if (!t->shared) {
        PyErr_SetString(PyExc_ValueError, "KeptCounts not initialised");
        return NULL;
    }
    Py_ssize_t words = t->shared_count / 64 + 1;
    uint64_t *bits = PyMem_Calloc((size_t)words, sizeof(uint64_t));
    if (!bits) return PyErr_NoMemory();
    PyObject *result = NULL;
    if (t->shared_union && !t->union_counted && union_find_slots(t, df) < 0) goto done;
    for (Py_ssize_t i = 0; i < t->shared_capacity; i++) {
        const SharedSlot *shared = &t->shared[i];
        if (!shared->key) continue;
        int32_t count;
        double weight;
        if (light_count(t, shared, df, &count) < 0 || count_weight(table, count, &weight) < 0) goto done;
        if (weight <= 0.0) bits[(shared->place - 1) / 64] |= 1ull << ((shared->place - 1) % 64);
    }
    result = bits_int(bits, words);
done:
    PyMem_Free(bits);
    return result;
}

static PyObject *title_text(PyObject *self, PyObject *element); /* defined at the end */
static PyObject *count_features(PyObject *self, PyObject *args); /* defined at the end */

static PyMethodDef methods[] = {
    {"count_features", count_features, METH_VARARGS, "df[f] = df.get(f, 0) + 1 for each feature of a set (site.py's SiteModel.add)."},
    {"title_text", title_text, METH_O, "The raw text of the page's head/title (summary.py's _find_title)."},
    {"jaccards", jaccards, METH_VARARGS, "site.jaccard_of_totals against every template (site.py's jaccards)."},
    {"shared_weights", shared_weights, METH_VARARGS, "A page's weight and its weight shared with each template (site.py's shared_weights)."},
    {"packed_weights", packed_weights, METH_VARARGS, "shared_weights of a packed page (site.py's packed_weights)."},
    {"shared_keys", shared_keys, METH_O, "The shared features as KeptCounts reads them (keptscores' SiteCounts)."},
    {"unpack_features", unpack_features, METH_O, "A packed page's features (site.py's _unpack)."},
    {"node_pairs", node_pairs, METH_VARARGS, "Parent -> child pairs of a walk's codes (summary.py's node_pairs)."},
    {"normalise", Walker_normalise, METH_O, "The C normalisation of an attribute value (for tests)."},
    {"pack_features", pack_features, METH_O, "A page's features packed into one string (site.py's _pack)."},
    {"pair_cache_size", pair_cache_size, METH_NOARGS, "How many feature strings node_pairs and unpack_features keep made (for tests)."},
    {"weight_table", weight_table, METH_VARARGS, "A site's weight table (site.py's _weight_table)."},
    {"weights_of", weights_of, METH_VARARGS, "Each feature's weight on a site (clusterfill's _weights_of)."},
    {"pool_shared", pool_shared, METH_VARARGS, "The weight every two pages of a pool share (clusterfill's KeptNeighbours)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_walk",
    "Compiled breadth-first summary walk over lxml's libxml2 tree (see summary.py).",
    -1, methods,
};

/* The lxml and libxml2 versions this module was compiled against (setup.py); summary.py checks
   them against the running ones before it uses the walk. */
static int add_version(PyObject *m, const char *name, const char *version) {
    PyObject *value = version ? PyUnicode_FromString(version) : Py_NewRef(Py_None);
    if (!value) return -1;
    int rc = PyModule_AddObjectRef(m, name, value);
    Py_DECREF(value);
    return rc;
}

#ifdef PAGESIM_BUILT_LXML
#define BUILT_LXML PAGESIM_BUILT_LXML
#else
#define BUILT_LXML NULL
#endif
#ifdef PAGESIM_BUILT_LIBXML
#define BUILT_LIBXML PAGESIM_BUILT_LIBXML
#else
#define BUILT_LIBXML NULL
#endif

PyMODINIT_FUNC PyInit__walk(void) {
    PyObject *etree = PyImport_ImportModule("lxml.etree");
    if (!etree) return NULL;
    element_type = PyObject_GetAttrString(etree, "_Element");
    Py_DECREF(etree);
    if (!element_type) return NULL;
    /* The struct above must match lxml's: refuse to load when the element size says otherwise. */
    if (((PyTypeObject *)element_type)->tp_basicsize != (Py_ssize_t)sizeof(LxmlElementLayout)) {
        PyErr_SetString(PyExc_ImportError, "lxml's element layout is not the one this module was built for");
        return NULL;
    }
    crc_init();
    if (PyType_Ready(&WalkerType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Unsupported = PyErr_NewException("pagesim_scrapy.core._walk.Unsupported", PyExc_ValueError, NULL);
    if (!Unsupported || PyModule_AddObjectRef(m, "Unsupported", Unsupported) < 0 ||
        PyModule_AddObjectRef(m, "Walker", (PyObject *)&WalkerType) < 0 ||
        add_version(m, "BUILT_LXML", BUILT_LXML) < 0 ||
        add_version(m, "BUILT_LIBXML", BUILT_LIBXML) < 0 || add_kept_counts(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

/* ---- the page's title, without a Python object per element ---------------------------------- */

/* An element lxml's find() matches by a plain tag name: no namespace (see lxml's
   _nsTagMatchesExactly). */
static int plain_element_named(const xmlNode *n, const char *name) {
    if (n->type != XML_ELEMENT_NODE || !n->name || strcmp((const char *)n->name, name) != 0) return 0;
    return !n->ns || !n->ns->href || n->ns->href[0] == '\0';
}

/* lxml's _textNodeOrSkip: the next text or CDATA node, past XInclude markers; NULL at any other. */
static const xmlNode *text_or_skip(const xmlNode *n) {
    while (n) {
        if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) return n;
        if (n->type != XML_XINCLUDE_START && n->type != XML_XINCLUDE_END) return NULL;
        n = n->next;
    }
    return NULL;
}

/* The first <title> child of the first <head> child (with one) of the document's root element,
   as lxml's root.find("head/title") finds it; NULL when there is none. */
static const xmlNode *head_title(const xmlDoc *doc) {
    const xmlNode *root = doc->children;
    while (root && root->type != XML_ELEMENT_NODE) root = root->next;
    if (!root) return NULL;
    for (const xmlNode *head = root->children; head; head = head->next) {
        if (!plain_element_named(head, "head")) continue;
        for (const xmlNode *t = head->children; t; t = t->next)
            if (plain_element_named(t, "title")) return t;
    }
    return NULL;
}

/* Why: finding the title through lxml makes a proxy for the root, the head and the title, and
   an ElementPath search, on every page.  Returns the title's text as lxml's `.text` reads it
   (its leading text nodes joined; '' when they are empty), None when the page has no title or
   the title no text; raises Unsupported where it would not be lxml's reading. */
static PyObject *title_text(PyObject *self, PyObject *element) {
    int is_element = PyObject_IsInstance(element, element_type);
    if (is_element < 0) return NULL;
    if (!is_element) {
        PyErr_SetString(PyExc_TypeError, "title_text needs an lxml element");
        return NULL;
    }
    const xmlNode *node = ((LxmlElementLayout *)element)->c_node;
    if (!node || !node->doc) {
        PyErr_SetString(Unsupported, "an element without a document");
        return NULL;
    }
    const xmlNode *title = head_title(node->doc);
    const xmlNode *first = title ? text_or_skip(title->children) : NULL;
    if (!first) Py_RETURN_NONE;
    Buffer text = {0};
    for (const xmlNode *t = first; t; t = text_or_skip(t->next)) {
        const char *content = (const char *)t->content;
        if (content && buf_add(&text, content, strlen(content)) < 0) {
            PyMem_Free(text.data);
            return NULL;
        }
    }
    PyObject *out = PyUnicode_DecodeUTF8(text.data ? text.data : "", (Py_ssize_t)text.len, NULL);
    PyMem_Free(text.data);
    if (!out && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        PyErr_Clear();
        PyErr_SetString(Unsupported, "a title that is not UTF-8");
    }
    return out;
}

/* ---- the templates' union summed from a site's counts ------------------------------------ */

static void union_free(KeptCounts *t) {
    PyMem_Free(t->union_keys);
    PyMem_Free(t->union_slots);
    PyMem_Free(t->union_masks);
    PyMem_Free(t->union_starts);
    PyMem_Free(t->shared_union);
    PyMem_Free(t->union_counts);
    PyMem_Free(t->union_index_keys);
    PyMem_Free(t->union_index_at);
    t->union_counts = NULL;
    t->union_index_keys = NULL;
    t->union_index_at = NULL;
    t->union_index_capacity = 0;
    t->union_counted = 0;
    t->members_in_union = 0;
    t->union_keys = t->union_masks = NULL;
    t->union_slots = t->union_starts = t->shared_union = NULL;
    t->union_size = t->union_mask_count = 0;
}

typedef struct {
    uint64_t mask, key;
    Py_ssize_t index;
} UnionEntry;

static int union_entry_order(const void *a, const void *b) {
    const UnionEntry *x = a, *y = b;
    if (x->mask != y->mask) return x->mask < y->mask ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int union_key_order(const void *a, const void *b) {
    const UnionEntry *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* The union's entries (feature key, group bits) read from the two tuples, ordered by bits. */
static UnionEntry *union_entries(PyObject *features, PyObject *bits, Py_ssize_t n) {
    UnionEntry *entries = PyMem_Calloc((size_t)(n ? n : 1), sizeof(UnionEntry));
    if (!entries) return (UnionEntry *)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *feature = PyTuple_GET_ITEM(features, i);
        entries[i].key = PyUnicode_Check(feature) ? feature_key(feature) : 0;
        entries[i].mask = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(bits, i));
        entries[i].index = i;
        if (PyErr_Occurred() || !entries[i].key) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a union feature that is not one or two codes");
            PyMem_Free(entries);
            return NULL;
        }
    }
    qsort(entries, (size_t)n, sizeof(UnionEntry), union_key_order);
    for (Py_ssize_t i = 1; i < n; i++) {
        if (entries[i].key == entries[i - 1].key) {
            PyErr_SetString(PyExc_ValueError, "a union feature given twice");
            PyMem_Free(entries);
            return NULL;
        }
    }
    qsort(entries, (size_t)n, sizeof(UnionEntry), union_entry_order);
    return entries;
}

/* Fills the union's arrays from its ordered entries. */
static int union_fill(KeptCounts *t, const UnionEntry *entries, Py_ssize_t n) {
    t->union_keys = PyMem_Calloc((size_t)(n ? n : 1), sizeof(uint64_t));
    t->union_slots = PyMem_Calloc((size_t)(n ? n : 1), sizeof(Py_ssize_t));
    t->union_masks = PyMem_Calloc((size_t)(n ? n : 1), sizeof(uint64_t));
    t->union_starts = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    t->union_counts = PyMem_Calloc((size_t)(n ? n : 1), sizeof(int32_t));
    if (!t->union_keys || !t->union_slots || !t->union_masks || !t->union_starts || !t->union_counts) {
        PyErr_NoMemory();
        return -1;
    }
    t->union_size = n;
    for (Py_ssize_t k = 0; k < n; k++) {
        t->union_keys[k] = entries[k].key;
        if (!k || entries[k].mask != entries[k - 1].mask) {
            t->union_masks[t->union_mask_count] = entries[k].mask;
            t->union_starts[t->union_mask_count++] = k;
        }
    }
    t->union_starts[t->union_mask_count] = n;
    t->union_layout = t->layout - 1; /* no slot found yet */
    return 0;
}

/* Each shared feature's place in the union (shared_union), from the union's entries (in the
   union's order; reordered here by key to be searched). */
static int shared_in_union(KeptCounts *t, UnionEntry *entries, Py_ssize_t n) {
    t->shared_union = PyMem_Malloc((size_t)(t->shared_count ? t->shared_count : 1) * sizeof(Py_ssize_t));
    if (!t->shared_union) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) entries[k].index = k;
    qsort(entries, (size_t)n, sizeof(UnionEntry), union_key_order);
    for (Py_ssize_t i = 0; i < t->shared_count; i++) t->shared_union[i] = -1;
    for (Py_ssize_t i = 0; i < t->shared_capacity; i++) {
        const SharedSlot *shared = &t->shared[i];
        if (!shared->key) continue;
        Py_ssize_t low = 0, high = n;
        while (low < high) {
            Py_ssize_t middle = low + (high - low) / 2;
            if (entries[middle].key < shared->key) low = middle + 1;
            else high = middle;
        }
        if (low < n && entries[low].key == shared->key) t->shared_union[shared->place - 1] = entries[low].index;
    }
    return 0;
}

/* set_union(features, bits) -> None: the templates' union (a tuple of distinct features) and
   each one's group bits (a tuple of ints), which union_weights sums from the slots' counts.
   Why: a young site sums the templates' union on every page; a hash, a probe and a loop over
   the group bits per feature cost more than the sums, while most features share a few sets of
   bits (summed together, then added to their groups once). */
static PyObject *KeptCounts_set_union(KeptCounts *t, PyObject *args) {
    PyObject *features, *bits;
    if (!PyArg_ParseTuple(args, "O!O!:set_union", &PyTuple_Type, &features, &PyTuple_Type, &bits)) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(features);
    if (n != PyTuple_GET_SIZE(bits) || n >= (1 << 29)) {
        PyErr_SetString(PyExc_ValueError, "as many bits as features, fewer than 2**29");
        return NULL;
    }
    UnionEntry *entries = union_entries(features, bits, n);
    if (!entries) return NULL;
    union_free(t);
    union_unstamp(t);
    int failed = union_fill(t, entries, n) < 0 || shared_in_union(t, entries, n) < 0 || union_index(t) < 0;
    PyMem_Free(entries);
    if (failed) {
        union_free(t);
        return NULL;
    }
    t->members_in_union = t->members ? members_in_union(t, t->members) : 0;
    Py_RETURN_NONE;
}

/* Every union feature's slot found (made from ``df`` where missing) for this layout of the
   slots: making one may grow the table, which moves them all, so until none moved. */
static int union_find_slots(KeptCounts *t, PyObject *df) {
    while (t->union_layout != t->layout || !t->union_counted) {
        uint64_t layout = t->layout;
        for (Py_ssize_t k = 0; k < t->union_size && layout == t->layout; k++) {
            int made = 0;
            CountSlot *slot = counts_find(t, t->union_keys[k], df, -1, &made);
            if (!slot) return -1;
            t->union_slots[k] = slot - t->slots;
            slot->in_union = 1;
            t->union_counts[k] = slot->count;
        }
        if (layout == t->layout) {
            t->union_layout = layout;
            t->union_counted = 1;
        }
    }
    return 0;
}

/* union_weights(df, table, groups) -> (total, sums): the union's summed weight and its weight in
   each of ``groups`` groups (a feature's group bits from set_union), every count read from its
   slot (made from ``df`` where missing, as weights() makes it): the features of one set of bits
   summed together, then that sum added to each of its groups.  On the weights' grid every sum
   is exact in any order, so the sums are those of weights() over the same features. */
static PyObject *KeptCounts_union_weights(KeptCounts *t, PyObject *args) {
    PyObject *df, *table;
    Py_ssize_t groups;
    if (!PyArg_ParseTuple(args, "O!O!n:union_weights", &PyDict_Type, &df, &PyList_Type, &table, &groups)) return NULL;
    if (!t->shared || groups < 0 || groups > 64) {
        PyErr_SetString(PyExc_ValueError, "KeptCounts not initialised, or not 0 to 64 groups");
        return NULL;
    }
    if (!t->union_counted && union_find_slots(t, df) < 0) return NULL;
    double sums[64] = {0.0}, total = 0.0;
    for (Py_ssize_t g = 0; g < t->union_mask_count; g++) {
        double sum = 0.0, weight;
        for (Py_ssize_t k = t->union_starts[g]; k < t->union_starts[g + 1]; k++) {
            if (count_weight(table, t->union_counts[k], &weight) < 0) return NULL;
            sum += weight;
        }
        total += sum;
        add_to_groups(sums, t->union_masks[g], groups, sum);
    }
    return weights_result(total, sums, groups);
}

/* A shared feature's count for light(): the union's count when it is in the union and the
   union is counted (no slot read), else its slot's (looked up, made from ``df`` if missing). */
static int light_count(KeptCounts *t, const SharedSlot *shared, PyObject *df, int32_t *count) {
    Py_ssize_t k = t->shared_union ? t->shared_union[shared->place - 1] : -1;
    if (k >= 0 && t->union_counted) {
        *count = t->union_counts[k];
        return 0;
    }
    int made = 0;
    const CountSlot *slot = counts_find(t, shared->key, df, -1, &made);
    if (!slot) return -1;
    *count = slot->count;
    return 0;
}

/* ---- the site model's document counts, one pass over a page's set ----------------------------- */

/* df[key] = df.get(key, 0) + 1 with the key's hash known: the old count raised without the
   generic number protocol (an exact int), the small ints shared as Python shares them. */
static int count_one(PyObject *df, PyObject *key, Py_hash_t hash, PyObject *one) {
    PyObject *old = _PyDict_GetItem_KnownHash(df, key, hash);
    if (!old) return PyErr_Occurred() ? -1 : _PyDict_SetItem_KnownHash(df, key, one, hash);
    PyObject *raised = NULL;
    int overflow = 0;
    long long value = PyLong_CheckExact(old) ? PyLong_AsLongLongAndOverflow(old, &overflow) : 0;
    if (value == -1 && PyErr_Occurred()) return -1;
    if (PyLong_CheckExact(old) && !overflow && value < LLONG_MAX)
        raised = PyLong_FromLongLong(value + 1);
    else
        raised = PyNumber_Add(old, one);
    if (!raised) return -1;
    int rc = _PyDict_SetItem_KnownHash(df, key, raised, hash);
    Py_DECREF(raised);
    return rc;
}

/* count_features(df, features) -> None: ``df[f] = df.get(f, 0) + 1`` for each feature of the
   set ``features``, in the set's order (so df's order is the one collections' _count_elements
   gives).  Why in C: the site model counts every page of a crawl, a dictionary update per
   feature, and the set's entries already hold each feature's hash. */
static PyObject *count_features(PyObject *self, PyObject *args) {
    PyObject *df, *features;
    if (!PyArg_ParseTuple(args, "O!O:count_features", &PyDict_Type, &df, &features)) return NULL;
    if (!PyAnySet_Check(features)) {
        PyErr_SetString(PyExc_TypeError, "count_features takes a set");
        return NULL;
    }
    PyObject *one = PyLong_FromLong(1);
    if (!one) return NULL;
    Py_INCREF(features); /* kept alive (and its entries) while a key's comparison runs code */
    Py_ssize_t pos = 0;
    PyObject *key;
    Py_hash_t hash;
    int rc = 0;
    while (rc == 0 && _PySet_NextEntry(features, &pos, &key, &hash)) {
        /* comparing exact strings runs no code: the key stays in the set; any other key is
           held while its comparison may change the set */
        if (PyUnicode_CheckExact(key)) {
            rc = count_one(df, key, hash, one);
            continue;
        }
        Py_INCREF(key);
        rc = count_one(df, key, hash, one);
        Py_DECREF(key);
    }
    Py_DECREF(features);
    Py_DECREF(one);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

/* ---- kept pages scored again in one call ------------------------------------------------------ */

/* A kept page's summed weight (``*total``) and its weight in each of ``count`` templates
   (``sums``, zeroed by the caller), its features' counts read from the slots (made from ``df``
   where missing): weights()' sums. */
/* Whether every key of ``members`` is a feature of the union (set_union): then a slot outside
   the union has no template bits, and slot_members need not read the dictionary for it.
   Why: a young site's new page is scored at every re-estimate, and most of its features are
   new to the site's table; a string made and a dictionary read for each was most of it. */
static int members_in_union(const KeptCounts *t, PyObject *members) {
    if (!t->union_index_capacity) return 0;
    size_t mask = (size_t)t->union_index_capacity - 1;
    PyObject *feature, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(members, &pos, &feature, &value)) {
        uint64_t key = PyUnicode_CheckExact(feature) ? feature_key(feature) : 0;
        if (!key) return 0;
        size_t at = key_hash(key, t->union_index_capacity);
        while (t->union_index_keys[at] && t->union_index_keys[at] != key) at = (at + 1) & mask;
        if (!t->union_index_keys[at]) return 0;
    }
    return 1;
}

static int kept_sums(KeptCounts *t, PyObject *packed, PyObject *members, PyObject *df, PyObject *table,
                     Py_ssize_t count, double *total, double *sums) {
    if (members != t->members) { /* other templates: their bits are read again */
        for (Py_ssize_t i = 0; i < t->capacity; i++) t->slots[i].known = 0;
        Py_XSETREF(t->members, Py_NewRef(members));
        t->members_in_union = members_in_union(t, members);
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(packed);
    for (Py_ssize_t i = 0; i < n; i += 2) {
        uint64_t key = packed_key(packed, i), bits;
        prefetch_ahead(t, packed, i, n);
        if (!key) continue;
        int made = 0;
        double weight;
        CountSlot *slot = counts_find(t, key, df, -1, &made);
        if (!slot || slot_members(t, slot, members, &bits) < 0) return -1;
        if (count_weight(table, slot->count, &weight) < 0) return -1;
        *total += weight;
        add_to_groups(sums, bits, count, weight);
    }
    return 0;
}

/* site.jaccards of a page (``total``, ``sums``) against each template's total (``totals``):
   jaccard_of_totals' float operations in its order. */
static PyObject *jaccard_list(double total, const double *sums, PyObject *totals) {
    Py_ssize_t n = PyList_GET_SIZE(totals);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        double both = sums[i], other = PyFloat_AsDouble(PyList_GET_ITEM(totals, i)), value = 0.0;
        if (other == -1.0 && PyErr_Occurred()) {
            Py_DECREF(out);
            return NULL;
        }
        if (both > 0.0) {
            double union_ = total + other - both;
            if (union_ > 0.0) {
                double ratio = both / union_;
                value = ratio < 1.0 ? ratio : 1.0; /* min(1.0, ratio) */
            }
        }
        PyObject *item = PyFloat_FromDouble(value);
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

/* weights_many(pages, members, df, table, count, totals) -> for each packed page of the list
   ``pages``, site.jaccards(shared, total, totals) of its weights(): the same floats as one
   weights() and one jaccards() call per page.  Why: a re-estimate past a site's young pages
   scores hundreds of kept pages again, and the Python around each page's two calls was a
   large part of re-scoring it. */
static PyObject *KeptCounts_weights_many(KeptCounts *t, PyObject *args) {
    PyObject *pages, *members, *df, *table, *totals;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "O!O!O!O!nO!:weights_many", &PyList_Type, &pages, &PyDict_Type, &members,
                          &PyDict_Type, &df, &PyList_Type, &table, &count, &PyList_Type, &totals))
        return NULL;
    if (count < 0 || count > 64 || PyList_GET_SIZE(totals) != count) {
        PyErr_SetString(PyExc_ValueError, "between 0 and 64 templates, a total for each");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(pages);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *packed = PyList_GET_ITEM(pages, i);
        if (!PyUnicode_Check(packed)) {
            PyErr_SetString(PyExc_TypeError, "a packed page is a str");
            goto fail;
        }
        Py_INCREF(packed); /* held while df's look-ups run */
        double sums[64] = {0.0}, total = 0.0;
        int rc = check_ready(t, packed) < 0 ? -1 : kept_sums(t, packed, members, df, table, count, &total, sums);
        PyObject *values = rc < 0 ? NULL : jaccard_list(total, sums, totals);
        Py_DECREF(packed);
        if (!values) goto fail;
        PyList_SET_ITEM(out, i, values);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* ---- one weight read, shared by every pass that sums weights (rest15) -------------------------- */

/* ``table[count]`` as a double, the count checked against the table: the step every pass that
   sums a site's weights takes (from df's counts or the compiled slots alike). */
static int count_weight(PyObject *table, Py_ssize_t count, double *weight) {
    if (count < 0 || count >= PyList_GET_SIZE(table)) {
        PyErr_SetString(PyExc_IndexError, "a count past the weight table");
        return -1;
    }
    *weight = PyFloat_AsDouble(PyList_GET_ITEM(table, count));
    return *weight == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* ``weight`` added to ``sums[b]`` for each bit b of ``bits`` below ``groups``: a feature's (or a
   set of features') weight added to each template or group holding it. */
static void add_to_groups(double *sums, uint64_t bits, Py_ssize_t groups, double weight) {
    for (; bits; bits &= bits - 1) {
        int b = __builtin_ctzll(bits);
        if (b < groups) sums[b] += weight;
    }
}

/* ---- the templates' union counted in step with the slots (rest15) -------------------------- */

/* A slot's count copied to the union's counts when the slot is a union feature: the union is
   then summed from its own small array, not from its ~800 slots spread over a table larger
   than the cache (a young site sums it on every page). Only a stamped slot looks its place
   up, in an index small enough to stay in the cache. */
static void union_raise(KeptCounts *t, const CountSlot *slot) {
    if (!slot->in_union || !t->union_index_capacity) return;
    size_t mask = (size_t)t->union_index_capacity - 1, at = key_hash(slot->key, t->union_index_capacity);
    while (t->union_index_keys[at] && t->union_index_keys[at] != slot->key) at = (at + 1) & mask;
    Py_ssize_t k = t->union_index_keys[at] ? t->union_index_at[at] : -1;
    if (k >= 0 && k < t->union_size) t->union_counts[k] = slot->count;
}

/* Every slot's union stamp cleared (a new union is set; union_find_slots stamps its own). */
static void union_unstamp(KeptCounts *t) {
    for (Py_ssize_t i = 0; i < t->capacity; i++) t->slots[i].in_union = 0;
}

/* The union's index: each feature's key to its place in the union (at most half full). */
static int union_index(KeptCounts *t) {
    Py_ssize_t capacity = 4;
    while (capacity < 2 * t->union_size) capacity *= 2;
    t->union_index_keys = PyMem_Calloc((size_t)capacity, sizeof(uint64_t));
    t->union_index_at = PyMem_Calloc((size_t)capacity, sizeof(Py_ssize_t));
    if (!t->union_index_keys || !t->union_index_at) {
        PyErr_NoMemory();
        return -1;
    }
    t->union_index_capacity = capacity;
    for (Py_ssize_t k = 0; k < t->union_size; k++) {
        size_t at = key_hash(t->union_keys[k], capacity);
        while (t->union_index_keys[at]) at = (at + 1) & ((size_t)capacity - 1);
        t->union_index_keys[at] = t->union_keys[k];
        t->union_index_at[at] = k;
    }
    return 0;
}
