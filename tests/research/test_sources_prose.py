"""The prose controls' parsers on small real-shaped pages: roff (Git's DocBook man pages), POD,
Sphinx and DocBook HTML. What becomes the query, what the document, and that code,
navigation and metadata stay out of the document."""

from __future__ import annotations

from qidf_research.sources import html_text, pod
from qidf_research.sources import prose as sp

GIT_ADD = r""".\"     Title: git-add
.TH "GIT\-ADD" "1" "10/07/2025" "Git 2\&.39\&.5" "Git Manual"
.ie \n(.g .ds Aq \(aq
.el       .ds Aq '
.nh
.SH "NAME"
git-add \- Add file contents to the index
.SH "SYNOPSIS"
.sp
.nf
\fIgit add\fR [\-\-verbose | \-v] [\-\-dry\-run | \-n]
.fi
.sp
.SH "DESCRIPTION"
.sp
This command updates the index using the current content found in the working tree\&.
.sp
The \fBgit add\fR command will not add ignored files by default\&. It\*(Aqs \(lqsafe\(rq\&.
.sp
.RS 4
.ie n \{\
\h'-04'\(bu\h'+03'\c
.\}
.IP \(bu 2.3
Ignored files reached by directory recursion will be silently ignored\&.
.RE
.sp
.if n \{\
.RS 4
.\}
.nf
$ git add Documentation/\e*\&.txt
.fi
.SH "OPTIONS"
.PP
\-n, \-\-dry\-run
.RS 4
Don\(cqt actually add the file(s)\&.
"""


def test_man_summary_and_description_keeps_prose_only():
    summary, desc = sp.man_summary_and_description(GIT_ADD)
    assert summary == "Add file contents to the index"
    assert desc.startswith("This command updates the index using the current content")
    assert "git add command will not add ignored files by default." in desc
    assert "It's \"safe\"." in desc
    assert "safe\". Ignored files reached by directory recursion" in desc  # bullet gone
    assert "Documentation/" not in desc  # the .nf example is code
    assert "2.3" not in desc and "dry-run" not in desc and "\\" not in desc


PERL_MODULE = """package Text::Abbrev;
require 5.005;

=head1 NAME

Text::Abbrev - abbrev - create an abbreviation table from a list

=head1 SYNOPSIS

    use Text::Abbrev;
    abbrev $hashref, LIST

=head1 DESCRIPTION

Stores all unambiguous truncations of each element of LIST
as keys in the associative array referenced by C<$hashref>.
The values are the original list elements. See L<perlfunc/keys>
and L<the abbreviation docs|Text::Abbrev/EXAMPLE>.

    $hashref = abbrev qw(list edit send abort gripe);

=begin html

<p>Only for HTML renderers.</p>

=end html

=over 4

=item *

B<Note>: the table is built in E<lt>O(n)E<gt> time.

=back

=head2 Returning a hash

X<abbrev> In list context it returns the hash itself.

=head1 EXAMPLE

    %hash = abbrev qw(list edit send abort gripe);

=cut

sub abbrev { my $word; }
1;
"""


def test_pod_sections_and_summary():
    sections = pod.pod_sections(PERL_MODULE)
    assert list(sections) == ["NAME", "SYNOPSIS", "DESCRIPTION", "EXAMPLE"]
    assert sections["SYNOPSIS"] == []  # verbatim paragraphs are code
    summary, desc = pod.pod_summary_and_description(PERL_MODULE)
    assert summary == "abbrev - create an abbreviation table from a list"
    assert desc.startswith("Stores all unambiguous truncations of each element of LIST as keys")
    assert "referenced by $hashref." in desc
    assert "See perlfunc keys and the abbreviation docs." in desc
    assert "Note: the table is built in <O(n)> time." in desc
    assert "Returning a hash In list context it returns the hash itself." in desc
    assert "qw(" not in desc and "HTML renderers" not in desc and "my $word" not in desc


def test_pod_plain_formatting_codes():
    assert pod.pod_plain("C<< $a->[0] >> and I<B<nested>>") == "$a->[0] and nested"
    assert pod.pod_plain("E<lt>E<gt>E<sol>E<0x41>E<eacute>") == "<>/Aé"
    assert pod.pod_plain('L<"SEE ALSO"> X<idx>Z<>x, if A<B') == "SEE ALSO x, if A<B"
    assert pod.pod_plain("C<<=>") == "<="


def test_pod_name_without_dash_has_no_summary():
    text = "=head1 NAME\n\nFoo\n\n=head1 DESCRIPTION\n\nx\n"
    assert pod.pod_summary_and_description(text) == ("", "x")


SPHINX = """<html><head><title>json — JSON encoder and decoder</title></head><body>
<div class="related" role="navigation"><h3>Navigation</h3><a href="x">index</a></div>
<div class="body" role="main">
<section id="module-json">
<span id="json-json-encoder-and-decoder"></span><h1><a href="#module-json"><code class="xref py
 py-mod"><span class="pre">json</span></code></a> — JSON encoder and decoder<a class="headerlink"
 href="#module-json">¶</a></h1>
<p><strong>Source code:</strong> <a href="x">Lib/json/__init__.py</a></p>
<p><a href="y">JSON</a> is a lightweight data interchange format.</p><p>Encoding basic objects:</p>
<div class="highlight-python3 notranslate"><div class="highlight"><pre><span></span>
<span class="gp">&gt;&gt;&gt; </span>json.dumps([1, 2])</pre></div></div>
<div class="admonition note"><p class="admonition-title">Note</p><p>Keys are strings.</p></div>
<section id="basic-usage">
<h2>Basic Usage<a class="headerlink" href="#basic-usage">¶</a></h2>
<dl class="py function"><dt class="sig sig-object py" id="json.dump"><span class="sig-name">dump
</span>(<em>obj</em>, <em>fp</em>)</dt><dd><p>Serialize <em>obj</em> as a JSON formatted
stream to <em>fp</em>.</p></dd></dl>
<dl class="field-list simple"><dt>Author</dt><dd><p>Bob Ippolito</p></dd></dl>
</section></section></div>
<div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3><ul><li>json</li></ul></div>
</body></html>"""


def test_html_sections_sphinx_main_body_only():
    blocks = html_text.html_sections(SPHINX, sp.SPHINX_SKIP, "main")
    assert [(a, h) for a, h, _ in blocks] == [("module-json", "json — JSON encoder and decoder"),
                                              ("basic-usage", "Basic Usage")]
    intro, usage = blocks[0][2], blocks[1][2]
    assert intro == ("Source code: Lib/json/__init__.py JSON is a lightweight data interchange "
                     "format. Encoding basic objects: Keys are strings.")
    assert usage == "Serialize obj as a JSON formatted stream to fp."
    assert sp.heading_query(blocks[0][1]) == "JSON encoder and decoder"


def test_heading_query_strips_numbers_and_leading_name():
    assert sp.heading_query("5.4.1. Check Constraints") == "Check Constraints"
    assert sp.heading_query("Chapter 5. Data Definition") == "Data Definition"
    assert sp.heading_query("F.1. adminpack — pgAdmin support toolpack") == \
        "pgAdmin support toolpack"
    assert sp.heading_query("4.7.1 Default Argument Values¶") == "Default Argument Values"
    assert sp.heading_query("A simple example") == "A simple example"
    assert sp.heading_query("How do I copy a file?") == "How do I copy a file?"


KERNEL = """<div role="main" class="document"><section id="kobjects">
<h1>Everything you never wanted to know about kobjects</h1>
<dl class="field-list simple"><dt class="field-odd">Author</dt><dd><p>Greg Kroah-Hartman</p></dd>
</dl><p>Part of the difficulty in understanding the driver model is the kobject.</p>
<section id="frame-buffer-colormap"><h2>Frame Buffer Colormap</h2>
<dl class="c function"><dt class="sig sig-object c" id="c.fb_dealloc_cmap">void fb_dealloc_cmap
</dt><dd><p>deallocate a colormap</p></dd></dl><p><strong>Parameters</strong></p>
<p>Deallocates a colormap that was previously allocated with fb_alloc_cmap().</p>
</section></section></div>"""


def test_kernel_doc_sections_are_dropped_whole():
    blocks = html_text.html_sections(KERNEL, sp.KERNEL_SKIP, "main", sp.KERNEL_DROP)
    assert blocks == [("kobjects", "Everything you never wanted to know about kobjects",
                       "Part of the difficulty in understanding the driver model is the "
                       "kobject.")]


DOCBOOK_REF = """<html><head><title>CREATE TABLE</title></head><body><div class="navheader">
<table summary="Navigation header"><tr><th>CREATE TABLE</th></tr></table></div>
<div class="refentry" id="SQL-CREATETABLE"><div class="titlepage"></div><div class="refnamediv">
<h2><span class="refentrytitle">CREATE TABLE</span></h2><p>CREATE TABLE — define a new table</p>
</div><div class="refsynopsisdiv"><h2>Synopsis</h2><pre class="synopsis">
CREATE TABLE <em class="replaceable"><code>table_name</code></em> ( ... )</pre></div>
<div class="refsect1" id="SQL-CREATETABLE-DESCRIPTION"><h2>Description</h2><p>
<code class="command">CREATE TABLE</code> will create a new, initially empty table in the current
database. The table will be owned by the user issuing the command.</p></div>
<div class="refsect1" id="id-1"><h2>Parameters</h2><div class="variablelist"><dl><dt>
<code class="literal">TEMPORARY</code></dt><dd><p>If specified, the table is created as a temporary
table.</p></dd></dl></div></div></div>
<div class="navfooter"><table><tr><td>Prev</td></tr></table></div></body></html>"""

DOCBOOK_SECT = """<div class="sect1" id="DDL-CONSTRAINTS"><div class="titlepage"><div><div>
<h2 class="title" style="clear: both">5.4. Constraints</h2></div></div></div><div class="toc">
<dl class="toc"><dt><span class="sect2"><a href="#c">5.4.1. Check Constraints</a></span></dt></dl>
</div><p>Data types are a way to limit the kind of data that can be stored in a table.</p>
<div class="sect2" id="DDL-CONSTRAINTS-CHECK"><div class="titlepage"><div><div>
<h3 class="title">5.4.1. Check Constraints</h3></div></div></div><p>A check constraint is the most
generic constraint type.</p><pre class="programlisting">CREATE TABLE products (price numeric);
</pre></div></div>"""


def test_docbook_reference_page_purpose_answers_with_description():
    pairs = sp.docbook_pairs("sql-createtable.html", DOCBOOK_REF)
    purpose = [p for p in pairs if p[0] == "pgdoc:sql-createtable.html#purpose"]
    assert purpose == [("pgdoc:sql-createtable.html#purpose", "define a new table",
                        "CREATE TABLE will create a new, initially empty table in the current "
                        "database. The table will be owned by the user issuing the command.")]
    assert all(p[2] != purpose[0][2] for p in pairs if p is not purpose[0])
    assert all("table_name" not in p[2] and "Prev" not in p[2] for p in pairs)


def test_docbook_sections_skip_toc_and_code():
    pairs = sp.docbook_pairs("ddl-constraints.html", DOCBOOK_SECT)
    assert pairs == [
        ("pgdoc:ddl-constraints.html#DDL-CONSTRAINTS", "Constraints",
         "Data types are a way to limit the kind of data that can be stored in a table."),
        ("pgdoc:ddl-constraints.html#DDL-CONSTRAINTS-CHECK", "Check Constraints",
         "A check constraint is the most generic constraint type."),
    ]


def test_clean_pairs_drops_short_ambiguous_and_self_titled():
    ten = "one two three four five six seven eight nine ten"
    pairs = [
        ("a", "Reading and Writing Files", f"Reading and Writing Files. {ten}"),
        ("b", "Examples", ten + " b"),                       # query under 3 tokens
        ("c", "Notes and examples", ten + " c"),             # shared query: ambiguous
        ("d", "notes  and Examples", ten + " d"),
        ("e", "Define a new table", "too short"),            # document under 10 words
        ("f", "Create a new index", ten + " same"),          # identical documents
        ("g", "Remove an old index", ten + "  same"),
        ("h", "Change a run-time parameter", ten + " h"),
        ("i", "Migration to Version 15.1", ten + " i"),     # a template filled with a number
        ("j", "Migration to Version 15.10", ten + " j"),
    ]
    assert sp.clean_pairs(pairs) == [("a", "Reading and Writing Files", ten),
                                     ("h", "Change a run-time parameter", ten + " h")]


def test_task_samples_queries_but_keeps_every_document():
    ten = "one two three four five six seven eight nine ten"
    words = [chr(ord("a") + i) * 3 for i in range(20)]  # distinct words, no numbers
    pairs = [(f"d{i}", f"the {w} query", f"{ten} {w}") for i, w in enumerate(words)]
    task = sp._task("t", pairs, 5, lambda _: None, seed=0)
    assert len(task.corpus) == 20 and len(task.queries) == 5
    assert all(task.qrels[q] == {q: 1} for q in task.queries)
    assert sp._task("t", pairs, 5, lambda _: None, seed=0).queries == task.queries


def test_prose_task_keys():
    assert all(k.endswith("-prose") and k.count("-") == 1 for k in sp.PROSE_TASKS)
