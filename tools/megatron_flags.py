#!/usr/bin/env python3
"""megatron_flags.py MEGATRON_CHECKOUT COMMIT > tests/data/megatron_flags.txt

Records Megatron-LM's command-line argument names (and the choices of those
that have a fixed set) from its source, statically, so that `make test` can
check every flag `dnnpar export --format megatron` writes against them
(tests/megatron_flags.sh) without Megatron-LM or its dependencies installed.

Read from megatron/training/arguments.py:
  - every parser.add_argument / group.add_argument call: its '--' option
    strings and a literal `choices=[...]`;
  - every ArgumentGroupFactory(ConfigClass, exclude=[...]) call: the fields
    of the dataclass ConfigClass and of its dataclass bases, found anywhere
    under megatron/, named as megatron/training/argument_utils.py names them
    ("--" + field with '_' -> '-'; a bool field that defaults to True as
    "--no-FIELD" and "--disable-FIELD"; "arg_names" of its argparse_meta when
    given), with the values of a Literal[...] annotation as its choices.
Output lines: "--flag" or "--flag choice choice ...", sorted; a header line
names the source and commit.
"""
import ast
import os
import sys


def literal_strings(node):
    if isinstance(node, (ast.List, ast.Tuple)):
        out = []
        for e in node.elts:
            if isinstance(e, ast.Constant) and isinstance(e.value, (str, int)):
                out.append(str(e.value))
            else:
                return None
        return out
    return None


def main():
    root, commit = sys.argv[1], sys.argv[2]
    args_path = os.path.join(root, "megatron/training/arguments.py")
    tree = ast.parse(open(args_path).read())
    flags = {}

    def add(flag, choices=None):
        if choices:
            flags[flag] = sorted(set(flags.get(flag) or []) | set(choices))
        else:
            flags.setdefault(flag, flags.get(flag))

    factories = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name == "add_argument":
            opts = [a.value for a in node.args
                    if isinstance(a, ast.Constant) and isinstance(a.value, str) and
                    a.value.startswith("--")]
            choices = None
            for kw in node.keywords:
                if kw.arg == "choices":
                    choices = literal_strings(kw.value)
            for o in opts:
                add(o, choices)
        elif name == "ArgumentGroupFactory" and node.args and isinstance(node.args[0], ast.Name):
            exclude = []
            for kw in node.keywords:
                if kw.arg == "exclude":
                    exclude = literal_strings(kw.value) or []
            factories.append((node.args[0].id, set(exclude)))

    # every class definition under megatron/, by name
    classes = {}
    for dirpath, _, files in os.walk(os.path.join(root, "megatron")):
        for fn in files:
            if fn.endswith(".py"):
                try:
                    t = ast.parse(open(os.path.join(dirpath, fn)).read())
                except (SyntaxError, UnicodeDecodeError):
                    continue
                for n in ast.walk(t):
                    if isinstance(n, ast.ClassDef):
                        classes.setdefault(n.name, n)

    def fields(cls_name, seen):
        if cls_name in seen or cls_name not in classes:
            return []
        seen.add(cls_name)
        c = classes[cls_name]
        out = []
        for b in c.bases:
            if isinstance(b, ast.Name):
                out += fields(b.id, seen)
        for st in c.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                out.append(st)
        return out

    def enum_members(cls_name):
        c = classes.get(cls_name)
        if c is None or not any(getattr(b, "attr", getattr(b, "id", "")) == "Enum"
                                for b in c.bases):
            return None
        return [t.id for st in c.body if isinstance(st, ast.Assign)
                for t in st.targets if isinstance(t, ast.Name)] or None

    def literal_choices(ann):
        # Literal["a", "b"], Optional[Literal[...]] or an Enum (its member
        # names: ArgumentGroupFactory._get_enum_kwargs takes config_type[name])
        if isinstance(ann, ast.Name):
            return enum_members(ann.id)
        if isinstance(ann, ast.Subscript):
            base = ann.value.attr if isinstance(ann.value, ast.Attribute) else getattr(
                ann.value, "id", "")
            if base == "Literal":
                sl = ann.slice
                elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
                vals = [str(e.value) for e in elts if isinstance(e, ast.Constant)]
                return vals or None
            if base in ("Optional",):
                return literal_choices(ann.slice)
        return None

    for cls_name, exclude in factories:
        for st in fields(cls_name, set()):
            fname = st.target.id
            if fname in exclude or fname.startswith("_"):
                continue
            default = None
            meta_names = None
            if isinstance(st.value, ast.Constant):
                default = st.value.value
            elif isinstance(st.value, ast.Call):
                for kw in st.value.keywords:
                    if kw.arg == "default" and isinstance(kw.value, ast.Constant):
                        default = kw.value.value
                    if kw.arg == "metadata" and isinstance(kw.value, ast.Dict):
                        for k, v in zip(kw.value.keys, kw.value.values):
                            if isinstance(k, ast.Constant) and k.value == "argparse_meta" and \
                                    isinstance(v, ast.Dict):
                                for k2, v2 in zip(v.keys, v.values):
                                    if isinstance(k2, ast.Constant) and k2.value == "arg_names":
                                        meta_names = literal_strings(v2)
            is_bool = isinstance(st.annotation, ast.Name) and st.annotation.id == "bool"
            dashed = fname.replace("_", "-")
            if meta_names:
                names = meta_names
            elif is_bool and default is True:
                names = ["--no-" + dashed, "--disable-" + dashed]
            else:
                names = ["--" + dashed]
            for n in names:
                add(n, literal_choices(st.annotation))

    print("# Megatron-LM command-line arguments, read statically from NVIDIA/Megatron-LM@%s "
          "megatron/training/arguments.py and the dataclasses its ArgumentGroupFactory calls "
          "use (tools/megatron_flags.py)" % commit)
    for flag in sorted(flags):
        ch = flags[flag]
        print(flag + ("" if not ch else " " + " ".join(ch)))


if __name__ == "__main__":
    main()
