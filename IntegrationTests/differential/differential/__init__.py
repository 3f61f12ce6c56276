"""Differential testing of jwtk against PyJWT and joserfc (issue 12)."""
