# md2man.awk: the man pages of docs/*.md, as roff (man macros).
# usage: awk -v date=YYYY-MM-DD -v version=V -f scripts/md2man.awk docs/NAME.S.md > NAME.S
#
# The pages use a small part of Markdown, and this reads only that part:
# a first line "# name(S) -- what it is", "## SECTION" and "### Sub"
# headings, paragraphs, indented (4 spaces) or fenced code blocks, bullet
# lists ("* " or "- ", continued by indented lines), numbered lists, and
# tables (rows "| a | b |": each row a tagged paragraph, the first cell
# the tag).  Inline: `code` and **bold** in bold, *text* in italics, links
# as their text.

function esc(s) {
	gsub(/\\/, "\\e", s)
	return s
}

# Inline markup of one line of text.
function inline(s,    out, i, c, n, code, bold) {
	s = esc(s)
	while (match(s, /\[[^]]*\]\([^)]*\)/)) {
		link = substr(s, RSTART, RLENGTH)
		sub(/\]\([^)]*\)$/, "", link)
		s = substr(s, 1, RSTART - 1) substr(link, 2) substr(s, RSTART + RLENGTH)
	}
	out = ""
	n = length(s)
	code = 0
	for (i = 1; i <= n; i++) {
		c = substr(s, i, 1)
		if (c == "`") {
			out = out (code ? "\\fR" : "\\fB")
			code = !code
		} else if (!code && substr(s, i, 2) == "**") {
			out = out (bold ? "\\fR" : "\\fB")
			bold = !bold
			i++
		} else if (!code && c == "*" && substr(s, i + 1, 1) ~ /[A-Za-z.]/ && (i == 1 || substr(s, i - 1, 1) ~ /[ (\[]/)) {
			out = out "\\fI"
			italic = 1
		} else if (!code && c == "*" && italic) {
			out = out "\\fR"
			italic = 0
		} else if (code && c == "-") {
			out = out "\\-"
		} else if (code && c == "/") {
			out = out "/\\:" # a place to break a long path or list
		} else {
			out = out c
		}
	}
	if (code || bold || italic)
		out = out "\\fR"
	italic = 0
	return out
}

# A text line for roff: no leading '.' or '\'' (they would be requests).
function text(s) {
	s = inline(s)
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}

function flush_para() {
	if (para != "") {
		print ".PP"
		print para
		para = ""
	}
}

function cells(line, arr,    n, i) {
	sub(/^[ \t]*\|/, "", line)
	sub(/\|[ \t]*$/, "", line)
	gsub(/\\\|/, "\001", line)
	n = split(line, arr, /\|/)
	for (i = 1; i <= n; i++) {
		gsub(/\001/, "|", arr[i])
		gsub(/^[ \t]+|[ \t]+$/, "", arr[i])
	}
	return n
}

NR == 1 {
	title = $0
	sub(/^# */, "", title)
	name = title
	sub(/\(.*$/, "", name)
	sect = title
	sub(/^[^(]*\(/, "", sect)
	sub(/\).*$/, "", sect)
	what = title
	sub(/^.* -- /, "", what)
	printf ".TH %s %s \"%s\" \"ovni-auto %s\" \"ovni-auto manual\"\n", toupper(name), sect, date, version
	print ".SH NAME"
	print esc(name) " \\- " esc(what)
	next
}

# A picture on a line of its own: its caption and file, in brackets.
/^!\[[^]]*\]\([^)]*\)[ \t]*$/ {
	flush_para()
	alt = $0
	sub(/^!\[/, "", alt)
	file = alt
	sub(/\].*$/, "", alt)
	sub(/^[^]]*\]\(/, "", file)
	sub(/\).*$/, "", file)
	print ".PP"
	print "[picture: " inline(alt) " (docs/" esc(file) ")]"
	next
}

# Fenced code blocks.
/^```/ {
	if (!fence) {
		flush_para()
		print ".PP"
		print ".RS 4"
		print ".nf"
		fence = 1
	} else {
		print ".fi"
		print ".RE"
		fence = 0
	}
	next
}
fence {
	line = esc($0)
	gsub(/-/, "\\-", line)
	if (line ~ /^[.']/)
		line = "\\&" line
	print line
	next
}

/^## / {
	flush_para(); listing = 0
	h = $0
	sub(/^## */, "", h)
	print ".SH " toupper(esc(h))
	next
}
/^### / {
	flush_para(); listing = 0
	h = $0
	sub(/^### */, "", h)
	print ".SS " inline(h)
	next
}

# Indented code blocks (4 spaces or a tab, not inside a list item).
/^(    |\t)/ && !item {
	if (!indented) {
		flush_para()
		print ".PP"
		print ".RS 4"
		print ".nf"
		indented = 1
	}
	line = $0
	sub(/^(    |\t)/, "", line)
	line = esc(line)
	gsub(/-/, "\\-", line)
	if (line ~ /^[.']/)
		line = "\\&" line
	print line
	next
}
indented && !/^(    |\t)/ {
	print ".fi"
	print ".RE"
	indented = 0
}

# Tables: the header row names the columns; the separator row is skipped.
/^[ \t]*\|/ {
	flush_para()
	n = cells($0, c)
	if ($0 ~ /^[ \t]*\|[ \t:|-]+\|[ \t]*$/)
		next
	if (!intable) {
		intable = 1
		for (i = 1; i <= n; i++)
			head[i] = c[i]
		next
	}
	print ".TP"
	print text(c[1])
	body = c[2]
	for (i = 3; i <= n; i++)
		if (c[i] != "")
			body = body " (" head[i] ": " c[i] ")"
	print text(body)
	next
}
intable && !/^[ \t]*\|/ {
	intable = 0
}

# List items and their continuation lines.
/^[ \t]*[*-] / {
	flush_para()
	line = $0
	sub(/^[ \t]*[*-] /, "", line)
	print ".IP \\(bu 2"
	print text(line)
	item = 1
	next
}
/^[0-9]+\. / {
	flush_para()
	num = $0
	sub(/\. .*/, ".", num)
	line = $0
	sub(/^[0-9]+\. /, "", line)
	print ".IP " num " 4"
	print text(line)
	item = 1
	next
}
item && /^[ \t]+[^ \t]/ {
	line = $0
	sub(/^[ \t]+/, "", line)
	print text(line)
	next
}

/^[ \t]*$/ {
	flush_para()
	item = 0
	next
}

{
	item = 0
	para = para (para == "" ? "" : "\n") text($0)
}

END {
	flush_para()
	if (indented || fence) {
		print ".fi"
		print ".RE"
	}
}
