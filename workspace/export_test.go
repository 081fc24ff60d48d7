package workspace

// For the tests of the parse cache's life (package workspace_test).

func (s *Service) CloseIndex() error { return s.closeRefIndex() }
func (s *Service) CacheFile() string { return s.cacheFile() }
