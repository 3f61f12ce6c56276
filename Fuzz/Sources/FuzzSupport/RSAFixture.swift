// A throwaway RSA-2048 key (openssl genpkey, 2026-11-23) so the RSA harness can sign fuzzed
// header/claims JSON. Test key only, never used outside the fuzzers. Its kid in FuzzKeys is "rsf"
// (no alg declared: RS256...PS512 all fit), beside the fixture JWKS key "rs" whose private half is gone.
public enum FuzzRSAFixture {
    public static let privateKeyPEM = #"""
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC0TA1J/FKq8rhb
        yXE26unHaTstDqxwPYYhdQphuaRWWMU7KF4h0iFxIV/Uti77qxNdASdQZUSryryO
        g6sVNk0jCCevtrY7qtKhDqUEQYfQng0RzCiBdpkQeLGJ8DH3tsF18O+jsugBu4AM
        YGzoRZcjlpAUC47+jOMAk4FIxibYQ7wlgZ2tsPhWX4eZ5PGHauFKrGGGxfF7EYSb
        fbITo3OtZ3OCOVVtr6VdTfvI7U1C/YYp68pWFjV8cNktSE9c6ay1KKc/YQwJCmYh
        TRs4X0E5oxpTFiPo0EMnkb3Wi5O32Tdi5h2O4k6Uf4BTsS3AkO9Sx8MPBiujVgbe
        TgMmTqLdAgMBAAECggEAIzc+mj6lY/wEO/NhAG3Ka1d3xkF5N3Qg7IyIklV5Dp+I
        qJkmJ7t8KjVvWyQZkbEU12PoCqk5DEgNY9W+dyZz0x2e6NCKkCV5vhkW7Lmi/kG8
        wkbq+3yPgZrdbJikneKNr4x3tjT14Y6+wEweQZEEKCCatDucusYIeb6V8EG56SAf
        v9G/sfF5up3mo+QHqMCnXhSAHzWtIeWSeLFuuiz60+1DPxJ+q8RqnH36uznb2I+8
        +dOqTuxaBsGNrZ5BoI/ZNRiAJcny64fF4dhr7M0bElxKXY/sSK9SSUzwSN9AMDCm
        rgCUiG/vuvE5pzOqu0xsnB3rRtreUt7qaPkAAN1/iQKBgQDj0SuVqfmcv52s1QjB
        O/BxBvspj8bzKu6r79+YjXme8UEsaEPA1OugtUiJEyZaQ9TyylSzqmL4HZ22YNnT
        Ynl/as5ZQYGGtkt8Ey0vR2mL4UQATTEzzXQZKdKqWA1spF3erIBQH5qoj/W5eWIp
        +4PG97I/G3APRvU/1178S5a85QKBgQDKmfO3ftIT5//4hXr9BGazySl+FiX1k7uq
        QLc8HWkP7ajpYAzk6/qkdXPSeGiwM8TLuAMemTVCE/ZpAYouyVOZI+ad11p8AloD
        DmxxFsgu/63wAOD56gVTHxCf6ifgYaU8l1B1QSc3kQ5MDnG2yjkU91MGIiaWuAmy
        al/qZ1rmmQKBgFPlqR5hzWn7aw7GGYZIE6EcSAyjRUox6llpajedCkgNYsn+z8zI
        3Ml/WWoZokslpduPxaewvOfQyE7s1esx3bqd08YtCI1avuu/iClcLDN2TvupcdA4
        /mNx8oIHEVKMKYGil1JqgSNIeN7II+2AEaSJfZwd96O4pwLOxs007Rs9AoGBAKzM
        Ean3aIXB4fe9IOCb2FyOvezkRwvlLLJQ7/c9vlXvhZlGarj065lI87gXKnLeNILs
        Nvzp/xqUnB2DSrAM1lhO3mrROkN6XfstWiA6JhKvz1Jb7YY5qsDyReOeetRNc/jx
        tZXMM/6YoXENAL++SmEvcIhSqEb0QJEDWTs7W7RBAoGAJcMVV9qTSpsQK2MRllNV
        MQLxZen3urPSj9uqzNi+vZNBBeC2Ubpl26Wn4HBkLdPZUQR7pS0LWY3HiOhTWi8z
        W856Pxv7H1n2/DrLqoi94AJ+D6VkRf9gVQCVVWZrYga0ygX+Rod7tfbAmfAIbm6R
        mi6WHImmMPqdbs81b9icrfU=
        -----END PRIVATE KEY-----
        """#

    public static let publicKeyPEM = #"""
        -----BEGIN PUBLIC KEY-----
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtEwNSfxSqvK4W8lxNurp
        x2k7LQ6scD2GIXUKYbmkVljFOyheIdIhcSFf1LYu+6sTXQEnUGVEq8q8joOrFTZN
        Iwgnr7a2O6rSoQ6lBEGH0J4NEcwogXaZEHixifAx97bBdfDvo7LoAbuADGBs6EWX
        I5aQFAuO/ozjAJOBSMYm2EO8JYGdrbD4Vl+HmeTxh2rhSqxhhsXxexGEm32yE6Nz
        rWdzgjlVba+lXU37yO1NQv2GKevKVhY1fHDZLUhPXOmstSinP2EMCQpmIU0bOF9B
        OaMaUxYj6NBDJ5G91ouTt9k3YuYdjuJOlH+AU7EtwJDvUsfDDwYro1YG3k4DJk6i
        3QIDAQAB
        -----END PUBLIC KEY-----
        """#
}
