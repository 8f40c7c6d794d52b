# pivot.awk: "row column value" lines to a table for gnuplot's histograms.
# The first column seen in a row is its baseline. mode: speedup (baseline /
# value), norm (value / baseline), pct (value x 100), abs (value).
# A row without a column's value gets "-" (gnuplot: set datafile missing).
{
    r = $1; c = $2; v = $3 + 0
    if (!(r in rowseen)) { rows[++nr] = r; rowseen[r] = 1; base[r] = v }
    if (!(c in colseen)) { cols[++nc] = c; colseen[c] = 1 }
    val[r, c] = v; has[r, c] = 1
}
END {
    printf "label"
    for (j = 1; j <= nc; j++) printf " %s", cols[j]
    printf "\n"
    for (i = 1; i <= nr; i++) {
        r = rows[i]; printf "%s", r
        for (j = 1; j <= nc; j++) {
            c = cols[j]
            if (!has[r, c]) { printf " -"; continue }
            v = val[r, c]
            if (mode == "speedup") x = v > 0 ? base[r] / v : 0
            else if (mode == "norm") x = base[r] > 0 ? v / base[r] : 0
            else if (mode == "pct") x = v * 100
            else x = v
            printf " %.4f", x
        }
        printf "\n"
    }
}
