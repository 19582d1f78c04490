"""Writes a jar of Jackson's classes moved under Apache Iceberg's shaded prefix.

The Iceberg runtime jar of the PyPI package snowpark-connect-deps-iceberg refers to Jackson as
`org.apache.iceberg.shaded.com.fasterxml.jackson` but lacks those classes. Spark 3.5's wheel ships
Jackson (core, databind, annotations); this tool copies their classes with every name under
`com/fasterxml/jackson/` rewritten under that prefix: the entries' paths, and the texts of each
class file's constant pool (class names, descriptors, and the dotted names reflection reads).

Usage: python scripts/relocate_jackson.py OUT.jar IN.jar [IN.jar ...]
"""

import struct
import sys
import zipfile

PREFIX = "org/apache/iceberg/shaded/"
SLASHED = b"com/fasterxml/jackson/"
DOTTED = b"com.fasterxml.jackson."

# constant pool tags -> the size of the entry after its tag (Utf8 entries are read apart)
FIXED_SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4, 18: 4, 19: 2, 20: 2}


def relocated_text(text: bytes) -> bytes:
    return text.replace(SLASHED, PREFIX.encode() + SLASHED).replace(DOTTED, PREFIX.replace("/", ".").encode() + DOTTED)


def relocated_class(data: bytes) -> bytes:
    """The class file `data` with its constant pool's texts relocated; the rest as it was."""
    if data[:4] != b"\xca\xfe\xba\xbe":
        raise ValueError("not a class file")
    count = struct.unpack_from(">H", data, 8)[0]
    out = [data[:10]]
    position = 10
    index = 1
    while index < count:
        tag = data[position]
        if tag == 1:
            length = struct.unpack_from(">H", data, position + 1)[0]
            text = relocated_text(data[position + 3 : position + 3 + length])
            out.append(bytes([1]) + struct.pack(">H", len(text)) + text)
            position += 3 + length
        elif tag in FIXED_SIZES:
            out.append(data[position : position + 1 + FIXED_SIZES[tag]])
            position += 1 + FIXED_SIZES[tag]
        else:
            raise ValueError(f"unknown constant pool tag {tag}")
        # a long or a double takes two slots of the pool
        index += 2 if tag in (5, 6) else 1
    out.append(data[position:])
    return b"".join(out)


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    written = 0
    with zipfile.ZipFile(argv[1], "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
        for path in argv[2:]:
            with zipfile.ZipFile(path) as jar:
                for name in jar.namelist():
                    # Jackson's own classes only: not the multi-release copies under META-INF
                    if not (name.startswith(SLASHED.decode()) and name.endswith(".class")):
                        continue
                    out.writestr(PREFIX + name, relocated_class(jar.read(name)))
                    written += 1
    if written == 0:
        print(f"relocate_jackson: no class under {SLASHED.decode()} in {' '.join(argv[2:])}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
