"""``python -m qidf_ctl`` is the ``qidf`` command."""

from qidf_ctl.cli import main

main()
