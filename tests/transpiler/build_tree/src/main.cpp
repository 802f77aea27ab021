void run_scale();
void run_wrapped();
int main() {
  run_scale();
  run_wrapped();
}
