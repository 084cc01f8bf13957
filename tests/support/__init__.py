"""Test utilities that stand in for the network around a cluster (never for the cluster):
a verifying SigV4 proxy, a forward proxy, servers that time out or answer wrongly, JWTs."""
