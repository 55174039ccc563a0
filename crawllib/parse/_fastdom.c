/* Page text and link anchors from libxml2's tree, in C (crawllib.parse.fastdom).
 *
 * The same rules as crawllib/parse/htmldom.py, which stays the reference:
 * text_nodes + flatten for the text, find_links + anchor_text for the links.
 * Only xmlNode fields are read (lxml's public LxmlElement gives the node), so
 * nothing links against libxml2. A tree this code was not written for (an
 * element in a namespace, an entity reference, an attribute made of several
 * nodes) makes a function return None, and the caller takes the Python path.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <libxml/tree.h>
#include "lxml-version.h"
#include "lxml.etree.h"

static PyTypeObject *element_type;

typedef struct { char *p; size_t n, cap; } Buf;

static int put(Buf *b, const char *s, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = (b->n + n) * 2 + 64;
        char *p = PyMem_Realloc(b->p, cap);
        if (!p) return -1;
        b->p = p; b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, s, n);
    b->n += n;
    return 0;
}

/* ---- the names the rules look at ------------------------------------ */

typedef struct { const char **names; Py_ssize_t n; } Names;

static int names_from(PyObject *seq, Names *out) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of names");
    if (!fast) return -1;
    out->n = PySequence_Fast_GET_SIZE(fast);
    out->names = PyMem_Calloc(out->n ? out->n : 1, sizeof(char *));
    if (!out->names) { Py_DECREF(fast); PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < out->n; i++) {
        /* the UTF-8 form lives as long as the str, which the caller holds */
        out->names[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, i));
        if (!out->names[i]) { Py_DECREF(fast); PyMem_Free(out->names); return -1; }
    }
    Py_DECREF(fast);
    return 0;
}

static int named(const Names *names, const xmlNode *node) {
    for (Py_ssize_t i = 0; i < names->n; i++)
        if (!strcmp(names->names[i], (const char *)node->name)) return 1;
    return 0;
}

static int is_tag(const xmlNode *node, const char *tag) {
    return node->type == XML_ELEMENT_NODE && !strcmp((const char *)node->name, tag);
}

/* lxml's _isElement: what iterwalk and len() count */
static int element_like(const xmlNode *n) {
    return n->type == XML_ELEMENT_NODE || n->type == XML_COMMENT_NODE ||
           n->type == XML_PI_NODE || n->type == XML_ENTITY_REF_NODE;
}

static int is_text(const xmlNode *n) {
    return n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE;
}

static int skipped(const xmlNode *n) {  /* _textNodeOrSkip passes over these */
    return n->type == XML_XINCLUDE_START || n->type == XML_XINCLUDE_END;
}

/* lxml's _collectText from ``first``: the text or tail (has: not None) */
static int collect(Buf *b, const xmlNode *first, int *has) {
    b->n = 0; *has = 0;
    for (const xmlNode *n = first; n; n = n->next) {
        if (skipped(n)) continue;
        if (!is_text(n)) break;
        *has = 1;
        if (n->content && put(b, (const char *)n->content, strlen((const char *)n->content)))
            return -1;
    }
    return 0;
}

static const xmlNode *next_element_like(const xmlNode *n) {  /* getnext() */
    while (n && !element_like(n)) n = n->next;
    return n;
}

/* ---- flatten: getTextHelper's rules on a stream of text nodes -------- */

typedef struct {
    Buf out, tmp;
    int marked, has_break, bail;
    long nodes;  /* node marks before the first break of the current run */
} Flat;

enum { NODE_MARK = 0, BREAK_MARK = 1 };

static int java_fold_ws(unsigned char c) {  /* what _FOLD folds */
    return c == ' ' || c == '\t' || c == '\n' || c == 0x0b || c == 0x0c || c == '\r';
}

static int flush_run(Flat *f) {  /* _run_text: the marks before a piece */
    if (!f->nodes && !f->has_break) return 0;
    long spaces = f->has_break ? (f->nodes ? f->nodes - 1 : 0) : f->nodes;
    for (long i = 0; i < spaces; i++)
        if (put(&f->out, " ", 1)) return -1;
    if (f->has_break && put(&f->out, "\n", 1)) return -1;
    f->nodes = 0; f->has_break = 0;
    return 0;
}

static int piece(Flat *f, int mark, const char *s, size_t n) {
    const char *a = s, *e = s + n;
    int emit = 0;
    if (n) {
        while (a < e && (unsigned char)*a <= 0x20) a++;   /* String.trim() */
        while (e > a && (unsigned char)e[-1] <= 0x20) e--;
        if (a == e) mark = BREAK_MARK;  /* a blank node */
        else emit = 1;
    }
    if (f->marked) {
        if (mark == BREAK_MARK) f->has_break = 1;
        else if (!f->has_break) f->nodes++;
    }
    f->marked = 1;
    if (!emit) return 0;
    if (flush_run(f)) return -1;
    while (a < e) {
        const char *r = a;
        if (java_fold_ws((unsigned char)*a)) {
            while (r < e && java_fold_ws((unsigned char)*r)) r++;
            if (put(&f->out, " ", 1)) return -1;
        } else {
            while (r < e && !java_fold_ws((unsigned char)*r)) r++;
            if (put(&f->out, a, r - a)) return -1;
        }
        a = r;
    }
    return 0;
}

/* one text node of text_nodes(): ``marked`` is a BREAK before its text */
static int text_node(Flat *f, int marked, const char *s, size_t n) {
    if (!marked) return n ? piece(f, NODE_MARK, s, n) : 0;
    if (piece(f, NODE_MARK, "", 0)) return -1;
    return piece(f, BREAK_MARK, s, n);
}

static int element_text(Flat *f, const xmlNode *el, const Names *breaks) {
    int has;
    if (collect(&f->tmp, el->children, &has)) return -1;
    if (is_tag(el, "script") || is_tag(el, "style")) f->tmp.n = 0;
    return text_node(f, named(breaks, el), f->tmp.p, f->tmp.n);
}

static int tail_text(Flat *f, const xmlNode *node, const Names *breaks) {
    int has;
    if (collect(&f->tmp, node->next, &has)) return -1;
    int marked = node->type == XML_ELEMENT_NODE && named(breaks, node) &&
                 (has || next_element_like(node->next) != NULL);
    return text_node(f, marked, f->tmp.p, f->tmp.n);
}

static int unsupported(const xmlNode *n) {
    return n->type == XML_ENTITY_REF_NODE || (n->type == XML_ELEMENT_NODE && n->ns);
}

/* text_nodes(top, breaks, stop) into ``f``; stop_at_a: the stop is the
 * stop_at_a-th descendant <a> (0: none) */
static int walk_text(Flat *f, const xmlNode *top, const Names *breaks, int stop_at_a) {
    if (unsupported(top)) { f->bail = 1; return 0; }
    if (element_text(f, top, breaks)) return -1;
    const xmlNode *parent = top, *child = top->children;
    int anchors = 0;
    for (;;) {
        while (child && !element_like(child)) child = child->next;
        if (!child) {
            if (parent == top) return 0;
            if (tail_text(f, parent, breaks)) return -1;
            child = parent->next;
            parent = parent->parent;
            continue;
        }
        if (unsupported(child)) { f->bail = 1; return 0; }
        if (child->type == XML_ELEMENT_NODE) {
            if (stop_at_a && is_tag(child, "a") && ++anchors == stop_at_a) return 0;
            if (element_text(f, child, breaks)) return -1;
            parent = child;
            child = child->children;
        } else {  /* a comment or processing instruction: its tail */
            if (tail_text(f, child, breaks)) return -1;
            child = child->next;
        }
    }
}

/* the flattened text as str: flatten's lstrip("\n ").rstrip(" "), or
 * with java_trim, also String.trim() (all characters up to U+0020) */
static PyObject *flat_result(Flat *f, int java_trim) {
    if (flush_run(f)) return NULL;
    size_t a = 0, e = f->out.n;
    const unsigned char *p = (const unsigned char *)f->out.p;
    while (a < e && ((java_trim && p[a] <= 0x20) || p[a] == ' ' || p[a] == '\n')) a++;
    while (e > a && ((java_trim && p[e - 1] <= 0x20) || p[e - 1] == ' ')) e--;
    return PyUnicode_DecodeUTF8(e > a ? f->out.p + a : "", e - a, "replace");
}

static void flat_free(Flat *f) {
    PyMem_Free(f->out.p); PyMem_Free(f->tmp.p);
}

static const xmlNode *node_of(PyObject *element) {
    return ((struct LxmlElement *)element)->_c_node;
}

static PyObject *page_text(PyObject *self, PyObject *args) {
    PyObject *element, *breaks_seq;
    Names breaks;
    if (!PyArg_ParseTuple(args, "O!O", element_type, &element, &breaks_seq)) return NULL;
    if (names_from(breaks_seq, &breaks)) return NULL;
    Flat f = {0};
    PyObject *result = NULL;
    if (walk_text(&f, node_of(element), &breaks, 0)) PyErr_NoMemory();
    else if (f.bail) result = Py_NewRef(Py_None);
    else result = flat_result(&f, 0);
    flat_free(&f);
    PyMem_Free(breaks.names);
    return result;
}

/* ---- links ------------------------------------------------------------ */

#define ALT_WALK_LIMIT 1000

/* element.get(name): 1 and the value in ``b``, 0 if absent, -1 to bail */
static int attribute(Buf *b, const xmlNode *el, const char *name) {
    for (const xmlAttr *a = el->properties; a; a = a->next) {
        if (a->ns || strcmp((const char *)a->name, name)) continue;
        b->n = 0;
        const xmlNode *c = a->children;
        if (!c) return put(b, "", 0) ? -2 : 1;
        if (c->next || !is_text(c) || !c->content) return -1;
        return put(b, (const char *)c->content, strlen((const char *)c->content)) ? -2 : 1;
    }
    return 0;
}

/* one UTF-8 code point at s (n bytes left); its length in *len */
static Py_UCS4 code_point(const unsigned char *s, size_t n, size_t *len) {
    unsigned char c = s[0];
    size_t want = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    if (want > n) want = n;
    Py_UCS4 cp = want == 1 ? c : want == 2 ? c & 0x1f : want == 3 ? c & 0x0f : c & 0x07;
    for (size_t i = 1; i < want; i++) cp = (cp << 6) | (s[i] & 0x3f);
    *len = want;
    return cp;
}

static int java_whitespace(Py_UCS4 c) {  /* Character.isWhitespace */
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200a) ||
           c == 0x2028 || c == 0x2029 || c == 0x205f || c == 0x3000;
}

static int blank(const char *s, size_t n) {  /* not s.strip(_JAVA_WHITESPACE) */
    size_t i = 0, len;
    while (i < n) {
        if (!java_whitespace(code_point((const unsigned char *)s + i, n - i, &len))) return 0;
        i += len;
    }
    return 1;
}

static int word(Py_UCS4 c) { return c == '_' || Py_UNICODE_ISALNUM(c); }

/* re.search(r"\bnofollow\b", rel, re.IGNORECASE) */
static int nofollow(const char *s, size_t n) {
    static const char word_[] = "nofollow";
    for (size_t i = 0; i + 8 <= n; i++) {
        size_t k = 0;
        while (k < 8 && (s[i + k] | 0x20) == word_[k]) k++;
        if (k < 8) continue;
        size_t len, j = i;
        if (i > 0) {
            while (j > 0 && ((unsigned char)s[j - 1] & 0xc0) == 0x80) j--;
            if (j > 0) j--;
            if (word(code_point((const unsigned char *)s + j, n - j, &len))) continue;
        }
        if (i + 8 < n && word(code_point((const unsigned char *)s + i + 8, n - i - 8, &len)))
            continue;
        return 1;
    }
    return 0;
}

static int is_post(const char *s, size_t n) {  /* method.lower() == "post" */
    return n == 4 && (s[0] | 0x20) == 'p' && (s[1] | 0x20) == 'o' &&
           (s[2] | 0x20) == 's' && (s[3] | 0x20) == 't';
}

/* shouldThrowAwayLink, as htmldom._throw_away */
typedef struct { int kind; const xmlNode *el; size_t off, len; } Part;  /* kind 0: text */

static int throw_away(Buf *b, const xmlNode *el, int needs_children) {
    int has, count = 0;
    for (const xmlNode *c = el->children; c; c = c->next) count += element_like(c);
    if (collect(b, el->children, &has)) return -1;
    if (count == 0) return needs_children && b->n == 0;
    if (count > 3) return 0;
    Part parts[7]; int n = 0;
    if (b->n) parts[n++] = (Part){0, NULL, 0, b->n};
    Buf all = *b; b->p = NULL; b->n = b->cap = 0;  /* the texts, end to end */
    for (const xmlNode *c = el->children; c; c = c->next) {
        if (!element_like(c)) continue;
        parts[n++] = (Part){1, c, 0, 0};
        size_t at = all.n;
        if (collect(b, c->next, &has) || put(&all, b->p, b->n)) { PyMem_Free(all.p); return -1; }
        if (b->n) parts[n++] = (Part){0, NULL, at, b->n};
    }
#define IS(i) (parts[i].kind == 1 && is_tag(parts[i].el, (const char *)el->name))
#define BLANK(i) (parts[i].kind == 0 && blank(all.p + parts[i].off, parts[i].len))
    int result = 0;
    if (n == 1) result = IS(0);
    else if (n == 2) result = (IS(0) && BLANK(1)) || (IS(1) && BLANK(0));
    else if (n == 3) result = BLANK(0) && IS(1) && BLANK(2);
#undef IS
#undef BLANK
    PyMem_Free(all.p);
    return result;
}

/* _alt_texts joined by spaces, into f->out */
static int alt_texts(Flat *f, const xmlNode *link) {
    int starts = 0, has, first = 1;
    Buf *out = &f->out;
    out->n = 0;
#define ADD(p, n) do { if ((!first && put(out, " ", 1)) || put(out, (p), (n))) return -1; first = 0; } while (0)
    const xmlNode *parent = NULL, *child = link;
    for (;;) {
        while (child && !element_like(child)) child = child->next;
        if (!child) {
            if (parent == link) return 0;
            if (collect(&f->tmp, parent->next, &has)) return -1;
            if (f->tmp.n) ADD(f->tmp.p, f->tmp.n);
            child = parent->next;
            parent = parent->parent;
            continue;
        }
        if (unsupported(child)) { f->bail = 1; return 0; }
        if (child->type == XML_ELEMENT_NODE) {
            if (++starts > ALT_WALK_LIMIT) return 0;
            if (is_tag(child, "img")) {
                int got = attribute(&f->tmp, child, "alt");
                if (got < -1) return -1;
                if (got < 0) { f->bail = 1; return 0; }
                size_t a = 0, e = f->tmp.n;
                while (a < e && (unsigned char)f->tmp.p[a] <= 0x20) a++;
                while (e > a && (unsigned char)f->tmp.p[e - 1] <= 0x20) e--;
                if (got && a < e) ADD(f->tmp.p, f->tmp.n);
            }
            if (collect(&f->tmp, child->children, &has)) return -1;
            if (f->tmp.n) ADD(f->tmp.p, f->tmp.n);
            parent = child;
            child = child->children;
        } else {
            if (collect(&f->tmp, child->next, &has)) return -1;
            if (f->tmp.n) ADD(f->tmp.p, f->tmp.n);
            child = child->next;
        }
    }
#undef ADD
}

static PyObject *anchor(Flat *f, const xmlNode *link, const Names *breaks) {
    f->out.n = 0; f->marked = f->has_break = 0; f->nodes = 0;
    int stop_at_a = is_tag(link, "a") ? 1 : 2;
    if (walk_text(f, link, breaks, stop_at_a)) return PyErr_NoMemory();
    if (f->bail) return NULL;
    PyObject *text = flat_result(f, 1);
    if (!text || PyUnicode_GET_LENGTH(text)) return text;
    Py_DECREF(text);
    if (alt_texts(f, link)) return PyErr_NoMemory();
    if (f->bail) return NULL;
    return flat_result(f, 1);  /* nothing flattened is pending: a plain trim */
}

typedef struct { const char *tag, *attribute; int needs_children; } Rule;

static int rules_from(PyObject *seq, Rule **rules, Py_ssize_t *count) {
    PyObject *fast = PySequence_Fast(seq, "expected (tag, attribute, needs_children) rows");
    if (!fast) return -1;
    *count = PySequence_Fast_GET_SIZE(fast);
    *rules = PyMem_Calloc(*count ? *count : 1, sizeof(Rule));
    if (!*rules) { Py_DECREF(fast); PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < *count; i++) {
        Rule *r = &(*rules)[i];
        PyObject *tag, *attr;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "UUp", &tag, &attr,
                              &r->needs_children) ||
            !(r->tag = PyUnicode_AsUTF8(tag)) || !(r->attribute = PyUnicode_AsUTF8(attr))) {
            Py_DECREF(fast); PyMem_Free(*rules); return -1;
        }
    }
    Py_DECREF(fast);  /* the rows live in the caller's tuple */
    return 0;
}

/* one link element: 1 and a (target, anchor) pair appended, 0 if dropped */
static int one_link(PyObject *out, Flat *f, Buf *target, const xmlNode *el, const Rule *rule,
                    const Names *breaks) {
    int got = attribute(target, el, rule->attribute);
    if (got == -2) { PyErr_NoMemory(); return -2; }
    if (got < 0) return -1;
    if (!got) return 0;
    int thrown = throw_away(&f->tmp, el, rule->needs_children);
    if (thrown < 0) { PyErr_NoMemory(); return -2; }
    if (thrown) return 0;
    Buf value = {0};
    int rel = attribute(&value, el, "rel");
    int dropped = rel > 0 && nofollow(value.p, value.n);
    int method = rel < 0 || dropped ? 0 : attribute(&value, el, "method");
    dropped = dropped || (method > 0 && is_post(value.p, value.n));
    PyMem_Free(value.p);
    if (rel == -2 || method == -2) { PyErr_NoMemory(); return -2; }
    if (rel < 0 || method < 0) return -1;
    if (dropped) return 0;
    PyObject *text = anchor(f, el, breaks);
    if (!text) return PyErr_Occurred() ? -2 : -1;
    PyObject *url = PyUnicode_DecodeUTF8(target->p ? target->p : "", target->n, "replace");
    PyObject *pair = url ? PyTuple_Pack(2, url, text) : NULL;
    Py_XDECREF(url); Py_DECREF(text);
    if (!pair || PyList_Append(out, pair)) { Py_XDECREF(pair); return -2; }
    Py_DECREF(pair);
    return 1;
}

static PyObject *links(PyObject *self, PyObject *args) {
    PyObject *element, *table, *breaks_seq;
    if (!PyArg_ParseTuple(args, "O!OO", element_type, &element, &table, &breaks_seq)) return NULL;
    Rule *rules; Py_ssize_t count;
    Names breaks;
    if (rules_from(table, &rules, &count)) return NULL;
    if (names_from(breaks_seq, &breaks)) { PyMem_Free(rules); return NULL; }
    PyObject *out = PyList_New(0);
    Flat f = {0};
    Buf target = {0};
    int state = out ? 0 : -2;
    const xmlNode *top = node_of(element), *node = top;
    while (node && state >= 0) {  /* root.iter(): every element, in document order */
        if (node->type == XML_ELEMENT_NODE) {
            if (node->ns) { state = -1; break; }
            for (Py_ssize_t i = 0; i < count; i++) {
                if (strcmp(rules[i].tag, (const char *)node->name)) continue;
                state = one_link(out, &f, &target, node, &rules[i], &breaks);
                break;
            }
            if (state < 0) break;
            if (node->children) { node = node->children; continue; }
        } else if (node->type == XML_ENTITY_REF_NODE) { state = -1; break; }
        while (node != top && !node->next) node = node->parent;
        node = node == top ? NULL : node->next;
    }
    flat_free(&f);
    PyMem_Free(target.p); PyMem_Free(rules); PyMem_Free(breaks.names);
    if (state == -2) { Py_XDECREF(out); return NULL; }
    if (state == -1) { Py_XDECREF(out); Py_RETURN_NONE; }
    return out;
}

static PyMethodDef methods[] = {
    {"page_text", page_text, METH_VARARGS,
     "page_text(root, breaks) -> str | None: htmldom.flatten(text_nodes(root, breaks))"},
    {"links", links, METH_VARARGS,
     "links(root, rules, breaks) -> list[(target, anchor)] | None: find_links + anchor_text"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "crawllib.parse._fastdom",
    "Page text and links from libxml2's tree (see crawllib.parse.fastdom).", -1, methods,
};

PyMODINIT_FUNC PyInit__fastdom(void) {
    PyObject *etree = PyImport_ImportModule("lxml.etree");
    if (!etree) return NULL;
    element_type = (PyTypeObject *)PyObject_GetAttrString(etree, "_Element");
    Py_DECREF(etree);
    if (!element_type) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddStringConstant(m, "LXML_VERSION", LXML_VERSION_STRING)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
