# column.awk: from an experiments CSV (label first, then xlat-sim's columns,
# the quoted source's commas already turned into ';'), "label preset value"
# of the column named `name`.
BEGIN { FS = "," }
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; if (!(name in col)) exit 1; next }
{ print $1, $(col["preset"]), $(col[name]) }
