"""tf.app.run and tf.app.flags: TF 1.x's command-line flags without absl.

Design: TF 1.15's tf.app.flags is absl.flags behind a wrapper that parses sys.argv the first
time a flag is read. This module keeps that behaviour with a small parser of its own (the
package requires numpy only): DEFINE_string / DEFINE_integer / DEFINE_float / DEFINE_boolean
(DEFINE_bool) / DEFINE_list / DEFINE_enum register flags on the one FLAGS object; values come
from "--name=value" or "--name value", booleans also from "--name" and "--noname";
arguments that are not defined flags are left alone (absl's known_only=True, which tf.app.run
uses) and, with everything after "--", returned to main. The old keyword names flag_name,
default_value and docstring are accepted.

Errors: defining a flag twice raises DuplicateFlagError; reading an undefined flag raises
AttributeError(name); a value that does not convert (--n=abc for an integer, a value outside
an enum) raises IllegalFlagValueError naming the flag; tf.app.run prints it as absl does
("FATAL Flags parsing error: ...") and exits with status 1.
"""
import sys


class Error(Exception):
    pass


class DuplicateFlagError(Error):
    pass


class IllegalFlagValueError(Error):
    pass


class UnrecognizedFlagError(Error):
    pass


def _parse_bool(s):
    v = s.lower()
    if v in ("true", "t", "1", "yes", "y"):
        return True
    if v in ("false", "f", "0", "no", "n"):
        return False
    raise ValueError("Non-boolean argument to boolean flag: %r" % s)


class _Flag(object):
    def __init__(self, name, default, help_text, parser, type_name, boolean=False):
        self.name, self.help, self.parser, self.type_name, self.boolean = name, help_text, parser, type_name, boolean
        self.default = default if default is None or not isinstance(default, str) or type_name == "string" \
            else self._convert(default)
        self.value = self.default
        self.present = 0

    def _convert(self, text):
        try:
            return self.parser(text)
        except (ValueError, TypeError) as e:
            raise IllegalFlagValueError("flag --%s=%s: %s" % (self.name, text, e))


class FlagValues(object):
    """The FLAGS object: attribute access to flag values, parsed from sys.argv on first read."""

    def __init__(self):
        self.__dict__["_flags"] = {}
        self.__dict__["_parsed"] = False

    def _define(self, flag):
        if flag.name in self._flags:
            raise DuplicateFlagError("The flag '%s' is defined twice." % flag.name)
        self._flags[flag.name] = flag

    def __getattr__(self, name):
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(name)
        if not self.__dict__["_parsed"]:
            self(sys.argv, known_only=True)
        return flags[name].value

    def __setattr__(self, name, value):
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(name)
        flags[name].value = value

    def __contains__(self, name):
        return name in self._flags

    def __iter__(self):
        return iter(self._flags)

    def is_parsed(self):
        return self._parsed

    def mark_as_parsed(self):
        self.__dict__["_parsed"] = True

    def flag_values_dict(self):
        return {n: f.value for n, f in self._flags.items()}

    def __getitem__(self, name):
        return self._flags[name]

    def __call__(self, argv, known_only=False):
        """Parses argv (argv[0] is the program); returns [argv[0]] + the arguments that are not
        flags (and, unless known_only, raises UnrecognizedFlagError for unknown --flags)."""
        argv = list(argv)
        rest = argv[:1]
        i = 1
        while i < len(argv):
            arg = argv[i]
            i += 1
            if arg == "--":
                rest.extend(argv[i:])
                break
            if not arg.startswith("-") or arg == "-":
                rest.append(arg)
                continue
            body = arg[2:] if arg.startswith("--") else arg[1:]
            name, eq, text = body.partition("=")
            flag = self._flags.get(name)
            if flag is None and name.startswith("no") and not eq:
                f2 = self._flags.get(name[2:])
                if f2 is not None and f2.boolean:
                    f2.value, f2.present = False, f2.present + 1
                    continue
            if flag is None:
                if not known_only:
                    raise UnrecognizedFlagError("Unknown command line flag '%s'" % name)
                rest.append(arg)
                continue
            if flag.boolean and not eq:
                flag.value = True
            else:
                if not eq:
                    if i >= len(argv):
                        raise IllegalFlagValueError("Missing value for flag %s" % arg)
                    text = argv[i]
                    i += 1
                flag.value = flag._convert(text)
            flag.present += 1
        self.__dict__["_parsed"] = True
        return rest


FLAGS = FlagValues()


def _args(name, default, help, kw):  # noqa: A002 (absl's name)
    name = kw.pop("flag_name", name)
    default = kw.pop("default_value", default)
    help = kw.pop("docstring", help)  # noqa: A001
    return name, default, help


def DEFINE_string(name=None, default=None, help=None, flag_values=FLAGS, **kw):  # noqa: A002,N802
    name, default, help = _args(name, default, help, kw)  # noqa: A001
    flag_values._define(_Flag(name, default, help, str, "string"))


def DEFINE_integer(name=None, default=None, help=None, flag_values=FLAGS, lower_bound=None, upper_bound=None,  # noqa: A002,N802
                   **kw):
    name, default, help = _args(name, default, help, kw)  # noqa: A001

    def parse(text):
        v = int(text, 0) if isinstance(text, str) else int(text)
        if (lower_bound is not None and v < lower_bound) or (upper_bound is not None and v > upper_bound):
            raise ValueError("%d is outside [%s, %s]" % (v, lower_bound, upper_bound))
        return v
    flag_values._define(_Flag(name, default, help, parse, "int"))


def DEFINE_float(name=None, default=None, help=None, flag_values=FLAGS, lower_bound=None, upper_bound=None,  # noqa: A002,N802
                 **kw):
    name, default, help = _args(name, default, help, kw)  # noqa: A001
    flag_values._define(_Flag(name, default, help, float, "float"))


def DEFINE_boolean(name=None, default=None, help=None, flag_values=FLAGS, **kw):  # noqa: A002,N802
    name, default, help = _args(name, default, help, kw)  # noqa: A001
    flag_values._define(_Flag(name, default, help, _parse_bool, "bool", boolean=True))


DEFINE_bool = DEFINE_boolean


def DEFINE_list(name=None, default=None, help=None, flag_values=FLAGS, **kw):  # noqa: A002,N802
    name, default, help = _args(name, default, help, kw)  # noqa: A001
    f = _Flag(name, None, help, lambda t: [x for x in t.split(",") if x] if isinstance(t, str) else list(t), "list")
    f.default = f.value = f._convert(default) if default is not None else None
    flag_values._define(f)


def DEFINE_enum(name=None, default=None, enum_values=None, help=None, flag_values=FLAGS, **kw):  # noqa: A002,N802
    name, default, help = _args(name, default, help, kw)  # noqa: A001
    values = list(enum_values or [])

    def parse(text):
        if text not in values:
            raise ValueError("value should be one of <%s>" % "|".join(values))
        return text
    flag_values._define(_Flag(name, default, help, parse, "enum"))


class _FlagsModule(object):
    """What tf.app.flags is: the DEFINE_* functions, FLAGS and the error classes."""
    FLAGS = FLAGS
    FlagValues = FlagValues
    DEFINE_string = staticmethod(DEFINE_string)
    DEFINE_integer = staticmethod(DEFINE_integer)
    DEFINE_float = staticmethod(DEFINE_float)
    DEFINE_boolean = staticmethod(DEFINE_boolean)
    DEFINE_bool = staticmethod(DEFINE_boolean)
    DEFINE_list = staticmethod(DEFINE_list)
    DEFINE_enum = staticmethod(DEFINE_enum)
    Error = Error
    DuplicateFlagError = DuplicateFlagError
    IllegalFlagValueError = IllegalFlagValueError
    UnrecognizedFlagError = UnrecognizedFlagError


flags = _FlagsModule()


def run(main=None, argv=None):
    """tf.app.run: parses the flags in argv (sys.argv when None, known_only), then
    sys.exit(main(remaining argv)); main defaults to __main__.main."""
    args = sys.argv if argv is None else argv
    try:
        rest = FLAGS(args, known_only=True)
    except Error as e:
        sys.stderr.write("FATAL Flags parsing error: %s\n" % e)
        sys.exit(1)
    main = main or sys.modules["__main__"].main
    sys.exit(main(rest))
