"""Recovery from grammar parse errors (core/repair.py), on real parsed code.

Each sample reproduces, in a few lines, a bug of a grammar bundled with
tree-sitter-language-pack that made the extractor lose or stretch definitions in a
real repository (Pester, fpm, supabase/postgres, AFNetworking). Every test also
extracts with the repair switched off, to show the grammar bug bites there.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from symscope.core import parse
from symscope.core.languages import all_languages, language_by_name
from symscope.core.models import Symbol
from symscope.core.parse import Extraction, extract, recovery
from symscope.core.repair import Recovery, Region

FIXTURES = Path(__file__).parent / "fixtures" / "languages"

Row = tuple[str, str, int, int]


def _rows(result: Extraction) -> list[Row]:
    return [(s.qualname, s.kind, s.start_line, s.end_line) for s in result.symbols]


def _extract(language: str, source: str, path: str = "x") -> Extraction:
    spec = language_by_name(language)
    assert spec is not None
    return extract(path, source.encode(), spec)


@pytest.fixture
def unrepaired(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the repair off: extract from the whole file's parse as it is."""
    monkeypatch.setattr(recovery, "recover", lambda source, spec, tree, defs: Recovery([Region(tree.root_node)], [tree]))


def _by_name(result: Extraction, qualname: str) -> Symbol:
    return next(s for s in result.symbols if s.qualname == qualname)


# PowerShell: `$x = {}` (an empty script block) then a statement on the next line is an
# ERROR, and the function around it runs to the end of the file (a MISSING `}`).
POWERSHELL = """\
function Invoke-ContainerRun {
    param ($Container)
    try {
        $setup = & {
            $RootBlock.OneTimeTestSetup
        }
        $RootBlock.ScriptBlock = {}
        $SessionStateInternal = $script:SessionStateProperty.GetValue($SessionState, $null)
    }
    finally {
        $RootBlock.Dispose()
    }
}

function Discover-Test {
    param ($BlockContainer)
    if ($null -ne $steps -and 0 -lt @($steps).Count) {
        Invoke-PluginStep -Plugins $state.Plugin -Step DiscoveryStart -Context @{
            BlockContainers = $BlockContainer
        } -ThrowOnFailure
    }
}

# Runs one step of every plugin.
function Invoke-PluginStep {
    param ($Plugins, $Step)
    foreach ($p in $Plugins) { & $p.$Step }
}
"""

POWERSHELL_ROWS: list[Row] = [
    ("Invoke-ContainerRun", "function", 1, 13),
    ("Discover-Test", "function", 15, 22),
    ("Invoke-PluginStep", "function", 24, 28),
]


def test_powershell_empty_script_block_no_longer_swallows_the_functions_after_it() -> None:
    result = _extract("powershell", POWERSHELL)
    assert _rows(result) == POWERSHELL_ROWS
    assert result.has_errors  # the honest state of the parse: the grammar rejected a line
    step = _by_name(result, "Invoke-PluginStep")
    assert step.docstring == "Runs one step of every plugin."
    # Everything is sliced from the original bytes, blanked line included.
    run = _by_name(result, "Invoke-ContainerRun")
    assert "$RootBlock.ScriptBlock = {}" in POWERSHELL.encode()[run.start_byte : run.end_byte].decode()


@pytest.mark.usefixtures("unrepaired")
def test_powershell_sample_needs_the_repair() -> None:
    assert _rows(_extract("powershell", POWERSHELL)) == [("Invoke-ContainerRun", "function", 1, 28)]


# Fortran: `write(unit, fmt) "..."` (a format variable, then a string) is an ERROR; the
# subroutine then runs over the next procedure, which is lost.
FORTRAN = """\
module build_conf
    implicit none
    private
    public :: build_config_t

    type :: build_config_t
        logical :: auto_executables = .true.
    end type build_config_t

contains

    !> Print information on this instance
    subroutine info(self, unit)
        type(build_config_t), intent(in) :: self
        integer, intent(in) :: unit
        character(len=*), parameter :: fmt = '("#", 1x, a, t30, a)'

        write(unit, fmt) "Build configuration"
        write(unit, fmt) " - auto-discovery (apps)"
    end subroutine info

    !> Check that two instances are equal
    logical function is_same(this, that)
        class(build_config_t), intent(in) :: this
        class(build_config_t), intent(in) :: that

        is_same = this%auto_executables .eqv. that%auto_executables
    end function is_same

end module build_conf
"""


def test_fortran_write_with_format_variable_keeps_the_next_procedure() -> None:
    result = _extract("fortran", FORTRAN)
    assert _rows(result) == [
        ("build_conf", "module", 1, 30),
        ("build_conf.build_config_t", "struct", 6, 8),
        ("build_conf.info", "function", 12, 20),
        ("build_conf.is_same", "function", 22, 28),
    ]
    assert result.has_errors
    assert _by_name(result, "build_conf.is_same").docstring == "Check that two instances are equal"


@pytest.mark.usefixtures("unrepaired")
def test_fortran_sample_needs_the_repair() -> None:
    rows = _rows(_extract("fortran", FORTRAN))
    assert ("build_conf.info", "function", 12, 28) in rows
    assert all(row[0] != "build_conf.is_same" for row in rows)


# SQL: a plpgsql stub (`BEGIN END` with nothing inside) and a trailing `CREATE EVENT TRIGGER`
# (which the grammar does not know) make the root of the whole file one ERROR; a column type
# the grammar rejects (`halfvec(3)`) cuts its table short.
SQL = """\
CREATE SCHEMA extensions;

--
-- Name: ddl_watch(); Type: FUNCTION
--

CREATE FUNCTION extensions.ddl_watch() RETURNS event_trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
  cmd record;
BEGIN
  FOR cmd IN SELECT * FROM pg_event_trigger_ddl_commands()
  LOOP
    IF cmd.command_tag IN ('CREATE SCHEMA', 'ALTER SCHEMA')
    AND cmd.schema_name is distinct from 'pg_temp'
    THEN
      NOTIFY pgrst, 'reload schema';
    END IF;
  END LOOP;
END; $$;

-- Runs the search.
CREATE FUNCTION extensions.search(prefix text) RETURNS TABLE(name text)
    LANGUAGE plpgsql
    AS $$
DECLARE
_bucketId text;
BEGIN
    -- replaced by migrations
END
$$;

CREATE VIEW extensions.names AS SELECT name FROM extensions.items;

CREATE TABLE extensions.items (
    id serial primary key,
    embedding halfvec(3),
    flags bit(3)
);

CREATE EVENT TRIGGER ddl_watch ON ddl_command_end
   EXECUTE FUNCTION extensions.ddl_watch();
"""


def test_sql_statements_the_grammar_rejects_do_not_take_the_rest_of_the_file() -> None:
    result = _extract("sql", SQL)
    assert _rows(result) == [
        ("extensions", "module", 1, 1),
        ("extensions.ddl_watch", "function", 7, 21),
        ("extensions.search", "function", 23, 32),
        ("extensions.names", "type", 34, 34),
        ("extensions.items", "struct", 36, 40),
        ("ddl_watch", "function", 42, 43),
    ]
    assert result.has_errors
    search = _by_name(result, "extensions.search")
    assert search.docstring == "Runs the search."
    assert search.signature.startswith("CREATE FUNCTION extensions.search(prefix text)")


@pytest.mark.usefixtures("unrepaired")
def test_sql_sample_needs_the_repair() -> None:
    rows = _rows(_extract("sql", SQL))
    assert ("extensions.items", "struct", 36, 38) in rows  # cut short at `halfvec(3)`
    assert all(row[0] not in ("extensions.search", "ddl_watch") for row in rows)


# Objective-C: an availability macro after a property and after a method's parameters is an
# ERROR; the @implementation blocks after it are lost and their methods come out as functions.
OBJC = """\
#import "Manager.h"

typedef void (^TaskProgressBlock)(NSProgress *);

@interface TaskDelegate : NSObject <NSURLSessionTaskDelegate, NSURLSessionDataDelegate>
- (instancetype)initWithTask:(NSURLSessionTask *)task;
@property (nonatomic, strong) NSProgress *progress;
#if CAN_INCLUDE_METRICS
@property (nonatomic, strong) NSURLSessionTaskMetrics *metrics AF_API_AVAILABLE(ios(10), macosx(10.12));
#endif
@property (nonatomic, copy) TaskProgressBlock progressBlock;
@end

@implementation TaskDelegate

- (instancetype)initWithTask:(NSURLSessionTask *)task {
    self = [super init];
    return self;
}

#if CAN_INCLUDE_METRICS
- (void)URLSession:(NSURLSession *)session
              task:(NSURLSessionTask *)task
didFinishCollectingMetrics:(NSURLSessionTaskMetrics *)metrics AF_API_AVAILABLE(ios(10), macosx(10.12)) {
    self.metrics = metrics;
}
#endif

@end

@implementation Manager

- (void)resume {
    [self.task resume];
}

#if CAN_INCLUDE_METRICS
- (void)setMetricsBlock:(void (^)(NSURLSessionTaskMetrics *))block AF_API_AVAILABLE(ios(10), macosx(10.12)) {
    self.metricsBlock = block;
}
#endif

- (void)suspend {
    [self.task suspend];
}

@end
"""


def test_objc_availability_macros_keep_the_implementations() -> None:
    result = _extract("objc", OBJC, "Manager.m")
    assert _rows(result) == [
        ("TaskProgressBlock", "type", 3, 3),
        ("TaskDelegate", "class", 14, 29),
        ("TaskDelegate.initWithTask", "method", 16, 19),
        ("TaskDelegate.URLSession", "method", 22, 26),
        ("Manager", "class", 31, 47),
        ("Manager.resume", "method", 33, 35),
        ("Manager.setMetricsBlock", "method", 38, 40),
        ("Manager.suspend", "method", 43, 45),
    ]
    assert result.has_errors
    # The macro was blanked only for parsing: the signature is the original text.
    assert "AF_API_AVAILABLE(ios(10), macosx(10.12))" in _by_name(result, "Manager.setMetricsBlock").signature


@pytest.mark.usefixtures("unrepaired")
def test_objc_sample_needs_the_repair() -> None:
    rows = _rows(_extract("objc", OBJC, "Manager.m"))
    assert ("URLSession", "function", 22, 45) in rows
    assert all(row[1] != "class" for row in rows)


# C: errors a blanking could "fix" only by costing definitions. Blanking the line of a macro'd
# return type loses the function; blanking the array after `JEMALLOC_ALIGNED(...)` makes the
# macro the next function's attribute; `} else` before an `#endif` cannot be blanked without
# changing the nesting. The extraction stays what the grammar's own recovery gives.
C_MACROS = """\
#include "tsd.h"

/* Initialization. */
JEMALLOC_ALWAYS_INLINE bool
tsd_boot0(void) {
\tif (pthread_key_create(&tsd_tsd, &tsd_cleanup) != 0) {
\t\treturn true;
\t}
\treturn false;
}

JEMALLOC_ALWAYS_INLINE void
tsd_boot1(void) {
\t/* Do nothing. */
}

JEMALLOC_ALIGNED(CACHELINE)
size_t sz_index2size_tab[SC_NSIZES];

static void
sz_boot_index2size_tab(const sc_data_t *sc_data) {
\tfor (unsigned i = 0; i < SC_NSIZES; i++) {
\t\tsz_index2size_tab[i] = i;
\t}
}

static int
connect_ctx(int fd) {
    if (fd > 0) {
        return 1;
    } else
#endif
    if (fd < 0) {
        return 2;
    }
    return 0;
}

static int
after(void) {
    return 3;
}
"""

C_ROWS: list[Row] = [
    ("tsd_boot0", "function", 3, 10),
    ("tsd_boot1", "function", 12, 15),
    ("sz_boot_index2size_tab", "function", 20, 25),
    ("connect_ctx", "function", 27, 37),
    ("after", "function", 39, 42),
]


def test_a_repair_never_costs_a_definition() -> None:
    result = _extract("c", C_MACROS)
    assert result.has_errors
    assert _rows(result) == C_ROWS


@pytest.mark.usefixtures("unrepaired")
def test_c_macros_unrepaired_give_the_same() -> None:
    assert _rows(_extract("c", C_MACROS)) == C_ROWS


def _fixture_samples() -> list[tuple[str, Path]]:
    out = []
    for name in sorted(all_languages()):
        folder = FIXTURES / name
        samples = sorted(p for p in folder.glob("sample.*")) if folder.is_dir() else []
        out += [(name, p) for p in samples]
    return out


@pytest.mark.parametrize(("language", "sample"), _fixture_samples(), ids=lambda v: getattr(v, "name", v))
def test_error_free_files_are_extracted_exactly_as_without_the_repair(
    language: str, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = language_by_name(language)
    assert spec is not None
    source = sample.read_bytes()
    relative = f"{language}/{sample.name}"
    with_repair = extract(relative, source, spec)
    assert not with_repair.has_errors

    def refuse(*args: object) -> Recovery:
        raise AssertionError("repair ran on an error-free file")

    monkeypatch.setattr(recovery, "recover", refuse)
    without = extract(relative, source, dataclasses.replace(spec, resync=None))
    assert with_repair == without


def test_resync_is_data_in_languages_json() -> None:
    raw = json.loads((Path(parse.__file__).parent.parent / "languages.json").read_text("utf-8"))
    for name, entry in raw.items():
        spec = language_by_name(name)
        assert spec is not None
        assert spec.resync == entry.get("resync")
    assert language_by_name("sql").resync  # type: ignore[union-attr]
    assert language_by_name("objc").resync  # type: ignore[union-attr]
