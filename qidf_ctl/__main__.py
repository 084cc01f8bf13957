"""``python -m qidf_ctl`` is the ``qidf`` command."""

from qidf_ctl.entry import main

main()
