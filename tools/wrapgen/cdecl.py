"""Reads C function prototypes out of a preprocessed mpi.h.

The header is first run through the MPI's own compiler wrapper with -E, so
every macro (visibility attributes, MPICH's attribute macros, large-count
declarations) is already expanded. What is left is plain C declarations; this
module strips GCC attributes, splits the text into top-level statements and
turns each `ret PMPI_name(params)` statement into a Prototype. A parameter it
cannot name is an error, never a guess: the generator must fail loudly.
"""

import re


class ParseError(Exception):
    pass


class Param:
    def __init__(self, text, name):
        self.text = text          # declaration as written, e.g. "const int ranges[][3]"
        self.name = name          # identifier used to forward the argument

    def __repr__(self):
        return f"Param({self.text!r})"


class Prototype:
    def __init__(self, name, ret, params, variadic):
        self.name = name          # without the P prefix: "MPI_Send"
        self.ret = ret            # return type text: "int", "double", "MPI_Fint", ...
        self.params = params      # list of Param
        self.variadic = variadic  # True when the list ends in "..."

    def param(self, name):
        for p in self.params:
            if p.name == name:
                return p
        return None


def _strip_balanced(text, keyword):
    """Removes every `keyword(( ... ))` group, parentheses balanced."""
    out = []
    i = 0
    while True:
        j = text.find(keyword, i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        k = j + len(keyword)
        while k < len(text) and text[k].isspace():
            k += 1
        if k >= len(text) or text[k] != "(":
            out.append(keyword)
            i = j + len(keyword)
            continue
        depth = 0
        while k < len(text):
            if text[k] == "(":
                depth += 1
            elif text[k] == ")":
                depth -= 1
                if depth == 0:
                    k += 1
                    break
            k += 1
        i = k


def _statements(text):
    """Top-level statements ending in ';', skipping any with a brace body."""
    depth_paren = depth_brace = 0
    start = 0
    had_brace = False
    for i, ch in enumerate(text):
        if ch == "(":
            depth_paren += 1
        elif ch == ")":
            depth_paren -= 1
        elif ch == "{":
            depth_brace += 1
            had_brace = True
        elif ch == "}":
            depth_brace -= 1
        elif ch == ";" and depth_paren == 0 and depth_brace == 0:
            if not had_brace:
                yield text[start:i]
            start = i + 1
            had_brace = False


def _split_params(text):
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


_TYPE_WORDS = {"int", "char", "void", "const", "double", "float", "long", "short",
               "unsigned", "signed", "struct", "restrict", "__restrict"}


def _param_name(text, where):
    body = re.sub(r"(\s*\[[^\]]*\])+\s*$", "", text)
    m = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(.*\)$", body)
    if m:
        return m.group(1)
    m = re.search(r"(\w+)$", body)
    if m and m.group(1) not in _TYPE_WORDS and not m.group(1).startswith("MPI_") \
            and body.strip() != m.group(1):
        return m.group(1)
    if body == text and re.fullmatch(r"[\w\s\*]+", text):
        return None                     # an unnamed parameter of a simple type
    raise ParseError(f"{where}: cannot find the parameter name in '{text}'")


def parse(text, prefix="PMPI_"):
    """Returns {name without P: Prototype} for every declaration of prefix*."""
    text = _strip_balanced(text, "__attribute__")
    text = _strip_balanced(text, "__asm__")
    text = text.replace("__extension__", " ")
    protos = {}
    decl = re.compile(r"^(?:extern\s+)?(?P<ret>[\w\s\*]+?)\s*\b(?P<name>" + prefix +
                      r"\w+)\s*\((?P<params>.*)\)$", re.S)
    for stmt in _statements(text):
        stmt = " ".join(stmt.split())
        if prefix not in stmt:
            continue
        m = decl.match(stmt)
        if not m:
            if re.search(r"\b" + prefix + r"\w+\s*\(", stmt) and "typedef" not in stmt:
                raise ParseError(f"cannot read the declaration '{stmt[:200]}'")
            continue
        name = m.group("name")[1:]          # MPI_Send
        ret = " ".join(m.group("ret").split())
        params, variadic = [], False
        plist = _split_params(m.group("params"))
        if plist == ["void"]:
            plist = []
        for i, ptext in enumerate(plist):
            if ptext == "...":
                variadic = True
                continue
            pname = _param_name(ptext, name)
            if pname is None:
                # The header leaves it unnamed (Open MPI's MPI_Reduce_local has
                # an unnamed MPI_Op): the wrapper needs a name to forward it.
                pname = f"msc_arg{i}"
                ptext = f"{ptext} {pname}"
            params.append(Param(ptext, pname))
        protos[name] = Prototype(name, ret, params, variadic)
    return protos
