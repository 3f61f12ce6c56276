"""Mechanisms the gateway harnesses (apache/, envoy/, nginx/) share; each file one mechanism.

Import with the IntegrationTests folder on sys.path: `from support.http_raw import ...`.
"""
