# scale.mk - make check-scale: the scale-out recipes of docs/scale-out.md
# run for real (GNU parallel over ssh to two loopback "hosts", a Slurm
# cluster of one host), each result compared with one pass. Needs root; it
# installs slurm-wlm, munge, openssh-server, parallel and rsync when missing.
# Bounded: the script stops everything it started on the way out.

check-scale: all
	@timeout 600 bash scripts/check-scale.sh $(BUILD)/bin

.PHONY: check-scale
