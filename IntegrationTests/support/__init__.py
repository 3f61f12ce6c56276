"""Mechanisms the gateway harnesses (apache/, envoy/, forward-auth/, haproxy/, nginx/) share; each file one
mechanism.

Import with the IntegrationTests folder on sys.path: `from support.http_raw import ...`.
"""
