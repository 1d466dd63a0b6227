# What every README example script sources (scripts/check-readme-examples.sh): curl records each
# response's head in $EXAMPLE_HEAD and the command's output goes to $EXAMPLE_OUT; the expect_* checks
# read them. Each check fails when what it documents is absent: a header line needs the header, a
# prefix check (`...`) a non-empty match, a body check the text.
example_failed() { echo "FAILED: $EXAMPLE_COMMAND" >&2; echo "  $*" >&2; exit 1; }
curl() { command curl --max-time 10 -D "$EXAMPLE_HEAD" "$@"; }
# `larder sign` and the like in an example run the binary under test.
larder() { "${LARDER_BIN:?}" "$@"; }
run_example() {
    EXAMPLE_COMMAND=$1
    : >"$EXAMPLE_HEAD"
    echo "\$ $1"
    eval "$1" >"$EXAMPLE_OUT" 2>&1 || example_failed "exited $?: $(head -c 300 "$EXAMPLE_OUT")"
    head -c 300 "$EXAMPLE_OUT" | cat -v | sed 's/^/  /'
    echo
}
# The last response's head (curl -D appends one head per response).
last_head() { awk '/^HTTP\//{h=""} {h=h $0 "\n"} END{printf "%s", h}' "$EXAMPLE_HEAD" | tr -d '\r'; }
last_status() { last_head | head -1 | awk '{print $2}'; }
expect_status() {
    [[ "$(last_status)" == "$1" ]] || example_failed "status $(last_status), the README says $1"
}
expect_success() {
    local status
    # A line that calls no curl (ORIGIN=...) has no response to check; one that does must have one.
    [[ "$EXAMPLE_COMMAND" == *curl* ]] || return 0
    status=$(last_status)
    [[ "$status" =~ ^[23] ]] || example_failed "status ${status:-none}; add '#> $status' if that is meant"
}
expect_header() {
    local name=$1 value=$2 line actual
    # The field must be there: `Age: ...` documents an Age header, whatever its value.
    line=$(last_head | grep -i -m1 "^$name:") || example_failed "no $name header; the README says '$value'"
    actual=$(cut -d: -f2- <<<"$line" | sed 's/^ *//')
    if [[ "$value" == *... ]]; then
        [[ -n "$actual" && "$actual" == "${value%...}"* ]] || example_failed "$name is '$actual', the README says '$value'"
    else
        [[ "$actual" == "$value" ]] || example_failed "$name is '$actual', the README says '$value'"
    fi
}
expect_body() {
    [[ -n "$1" ]] || example_failed "an empty '#> ~' checks nothing"
    grep -qF -- "$1" "$EXAMPLE_OUT" || example_failed "the output does not contain '$1'"
}
