# md2man.awk - docs/cli.md to a man page (roff -man), so the man page is
# generated from the same text as the reference and cannot drift from it.
# Handles the Markdown docs/cli.md uses: "# " title, "## " sections, "### "
# subsections, paragraphs, "- " lists, ``` code blocks, | tables | and
# `code` spans (bold).  Usage: awk -v version=X -f scripts/md2man.awk docs/cli.md
function esc(s) {
    gsub(/\\/, "\\e", s)
    gsub(/-/, "\\-", s)
    return s
}
function inline(s,   out, i, n, parts) {
    s = esc(s)
    gsub(/\\\|/, "|", s)          # \| inside Markdown tables
    gsub(/\\e\|/, "|", s)
    n = split(s, parts, "`")
    out = parts[1]
    for (i = 2; i <= n; i++)
        out = out ((i % 2 == 0) ? "\\fB" : "\\fR") parts[i]
    if (n % 2 == 0) out = out "\\fR"
    return out
}
function line_out(s) {
    if (s ~ /^[.']/) s = "\\&" s
    print s
}
BEGIN { in_code = 0; in_table = 0 }
/^```/ {
    if (in_code) { print ".fi"; print ".RE"; in_code = 0 }
    else { print ".RS 2"; print ".nf"; in_code = 1 }
    next
}
in_code { line_out(esc($0)); next }
/^# / {
    printf ".TH DNNPAR 1 \"\" \"dnnpar %s\" \"User Commands\"\n", version
    print ".SH NAME"
    print "dnnpar \\- plan and simulate parallel DNN training on arrays of accelerators"
    print ".SH SYNOPSIS"
    next
}
/^## / { sub(/^## /, ""); print ".SH " toupper(inline($0)); in_table = 0; next }
/^### / { sub(/^### /, ""); print ".SS " inline($0); next }
/^\|[- |:]*\|$/ { next }                      # table rule
/^\|/ {
    row = $0
    sub(/^\| */, "", row); sub(/ *\|$/, "", row)
    gsub(/\\\|/, "\001", row)
    k = split(row, c, / *\| */)
    for (j = 1; j <= k; j++) gsub(/\001/, "\\|", c[j])
    if (!in_table) { in_table = 1; next }     # the header row
    print ".TP"
    line_out(inline(c[1]))
    rest = c[2]
    for (j = 3; j <= k; j++) rest = rest "; " c[j]
    line_out(inline(rest))
    next
}
/^- / { in_table = 0; sub(/^- /, ""); print ".IP \\(bu 2"; line_out(inline($0)); next }
/^ *$/ { in_table = 0; print ".PP"; next }
/^  +/ { sub(/^ +/, ""); line_out(inline($0)); next }
{ line_out(inline($0)) }
