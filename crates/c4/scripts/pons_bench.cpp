// Side-by-side reference: runs Pascal Pons' Connect Four solver over a test set the way
// `transpo-c4 bench` runs ours (table cleared before each position, only `solve` timed,
// no opening book) and prints one line per file: positions, wrong, mean time, mean
// positions explored, K positions/s.
//
// This file is ours; Pons' solver is not in this repository (it is AGPL). To build, put this
// file beside a checkout of https://github.com/PascalPons/connect4 (Solver.cpp, Solver.hpp,
// Position.hpp, TranspositionTable.hpp, MoveSorter.hpp), with a table of 2^24 entries (84 MB,
// as measured in ANCHORS §5), and:
//
//   g++ --std=c++17 -O3 -DNDEBUG -o pons_bench Solver.cpp pons_bench.cpp
//   ./pons_bench [-w] [-n LIMIT] ../shared/data/connect4/Test_L2_R2 ...
//
// Only the solver's public interface is used: Position::play(string), Solver::reset(),
// Solver::solve(P, weak), Solver::getNodeCount().
#include "Solver.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

using namespace GameSolver::Connect4;

int main(int argc, char** argv) {
  bool weak = false;
  long limit = -1;
  // The table is large: keep it off the stack.
  Solver* solver = new Solver();
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    if (arg == "-w") {
      weak = true;
      continue;
    }
    if (arg == "-n" && i + 1 < argc) {
      limit = std::atol(argv[++i]);
      continue;
    }
    std::ifstream file(arg);
    if (!file) {
      std::cerr << arg << ": cannot read\n";
      return 2;
    }
    std::string line;
    long n = 0, wrong = 0;
    double micros = 0, nodes = 0;
    while (std::getline(file, line) && (limit < 0 || n < limit)) {
      std::istringstream fields(line);
      std::string moves;
      int expected = 0;
      fields >> moves >> expected;
      Position P;
      if (P.play(moves) != moves.size()) {
        std::cerr << arg << ": bad line \"" << line << "\"\n";
        continue;
      }
      solver->reset();
      auto start = std::chrono::steady_clock::now();
      int score = solver->solve(P, weak);
      auto end = std::chrono::steady_clock::now();
      micros += std::chrono::duration<double, std::micro>(end - start).count();
      nodes += solver->getNodeCount();
      n++;
      // A weak solve answers with the sign, except for a win on the next move, which Pons'
      // solve reports in full: compare signs.
      if (weak ? (score > 0) - (score < 0) != (expected > 0) - (expected < 0) : score != expected)
        wrong++;
    }
    std::printf("%s%s | %ld | %ld | %.3f us | %.2f | %.0f |\n", arg.c_str(), weak ? " (weak)" : "",
                n, wrong, micros / n, nodes / n, nodes / micros * 1000);
  }
  delete solver;
}
