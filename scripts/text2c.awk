# text2c.awk: a text file as a C string constant, for files built into a
# program (the viewer's page parts): awk -v name=NAME -f text2c.awk FILE
BEGIN { printf "static const char %s[] =\n", name }
{
	out = ""
	n = length($0)
	for (i = 1; i <= n; i++) {
		c = substr($0, i, 1)
		out = out ((c == "\\" || c == "\"") ? "\\" c : c)
	}
	printf "\t\"%s\\n\"\n", out
}
END { print "\t\"\";" }
